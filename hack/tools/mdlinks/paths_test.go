/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repo stands for this repository's files, for the rule that recognises
// a path into a checkout by its tail.
func repo(p string) bool {
	switch p {
	case "hack", "hack/lib.sh", "hack/tools", "hack/tools/mdlinks", "hack/tools/mdlinks/main.go",
		"docs", "docs/kind.md", "kubelet", "kubelet/sidecars", "patches", "patches/v1.37", "README.md":
		return true
	}
	return false
}

// TestMachinePaths: lines as the repository's documents have them (docs/,
// README.md, e2e/README.md, docs/bench), and as leaked transcripts had them.
func TestMachinePaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want []found
	}{
		// What every node, container or reader has.
		{"the kubelet's root on a node", "(`/var/lib/kubelet/device-plugins/kubelet.sock`, a fixed path; the", nil},
		{"containerd's config", "`/etc/containerd/conf.d`, and the shim sockets in `/run/containerd/s`,", nil},
		{"a node image's kubelet", "| kubelet | `/usr/bin/kubelet` replaced by the patched one |", nil},
		{"a pod's volume", "        command: [\"sh\", \"-c\", \"until [ -f /shared/done ]; do sleep 1; done\"]", nil},
		{"the kernel's per-process files", "its process's CPU time (`/proc/<pid>/stat`, user + system)", nil},
		{"an HTTP path", "      httpGet: {path: /healthz/ready, port: 15021}", nil},
		{"a kubelet endpoint", "`prober_probe_total` (its `/metrics/probes`, by pod, container", nil},
		{"a kind node's manifests", "  from `/kind/manifests/default-cni.yaml`, as it applies kind's", nil},
		{"devices", "(`/dev/loop*`), and `/dev/kmsg` (the kubelet needs", nil},
		{"a cgroup root", "| cgroup root | `/sidecar-kubelet` | `/sidecar-kubelet-e2e-node` |", nil},
		{"a placeholder", "make e2e KUBECONFIG=/path/to/kubeconfig FOCUS='rule 3'", nil},
		{"placeholders of a user and a pid", "/home/<user>/go and /proc/<pid>/stat", nil},
		{"the temporary folder itself", "containers keep it in /tmp", nil},
		{"root's home, itself", "the container's /root", nil},
		{"a node's containerd socket", "CONTAINER_RUNTIME_ENDPOINT=unix:///run/containerd/containerd.sock", nil},
		{"a URL's path", "see https://kubernetes.io/home/docs and http://127.0.0.1:10350/metrics", nil},
		{"a path in an image", "\"/usr/local/bin/kube-proxy\" and /opt/containerd and /var/registry", nil},
		{"one component of the repository under a node's folder", "--root-dir /var/lib/kubelet", nil},

		// What the repository writes instead.
		{"$PWD", "==> built $PWD/_output/v1.37.1/bin/kubelet (v1.37.1-sidecar-kubelet+cfac9aa464ba) in 22s", nil},
		{"relative", "`KUBECONFIG=_output/cluster/kubeconfig` and ../../v1.37.1/kubernetes", nil},
		{"a home by ~ or a variable", "KUBECONFIG=~/.kube/kind-config make e2e, or $HOME/.kube/config, ${ROOT}/hack", nil},
		{"<repo>", "<repo>/_output/cluster/kubeconfig", nil},

		// One machine's.
		{"a checkout's _output", "==> built /work/main/_output/v1.37.1/bin/kubelet in 22s", []found{
			{"/work/main/_output/v1.37.1/bin/kubelet", "a checkout's _output"}}},
		{"an _output elsewhere", "KUBECONFIG=/srv/sk/_output/cluster/kubeconfig", []found{
			{"/srv/sk/_output/cluster/kubeconfig", "a checkout's _output"}}},
		{"a workspace", "cd /work/main && make up", []found{{"/work/main", "a workspace of checkouts"}}},
		{"a CI workspace", "in /github/workspace/docs", []found{{"/github/workspace/docs", "a workspace of checkouts"}}},
		{"a home", "(/home/alice/src/x)", []found{{"/home/alice/src/x", "a home directory"}}},
		{"a macOS home", "\"/Users/bob/go\"", []found{{"/Users/bob/go", "a home directory"}}},
		{"root's module cache", "/root/go/pkg/mod/k8s.io/kubernetes@v1.37.1/pkg", []found{
			{"/root/go/pkg/mod/k8s.io/kubernetes@v1.37.1/pkg", "root's home directory"}}},
		{"mktemp's folder", "clone in /tmp/tmp.Xy12ab/sidecar-kubelet.", []found{
			{"/tmp/tmp.Xy12ab/sidecar-kubelet", "a temporary directory"}}},
		{"a go build folder", "/tmp/go-build123/b001/exe/bench", []found{{"/tmp/go-build123/b001/exe/bench", "a temporary directory"}}},
		{"macOS's temporary folder", "/var/folders/x1/abc/T/", []found{{"/var/folders/x1/abc/T/", "a temporary directory"}}},
		{"a Go installation", "\t/usr/local/go/src/runtime/proc.go:283 +0x2f", []found{
			{"/usr/local/go/src/runtime/proc.go", "a machine's Go installation"}}},
		{"Debian's Go", "/usr/lib/go-1.26/src/os/file.go", []found{{"/usr/lib/go-1.26/src/os/file.go", "a machine's Go installation"}}},
		{"a checkout's .git", "alternates: /srv/mirror/sk/.git/objects", []found{{"/srv/mirror/sk/.git/objects", "a checkout's .git"}}},
		{"a checkout found by its files", "see /srv/ci/sidecar-kubelet/hack/tools/mdlinks/main.go:12", []found{
			{"/srv/ci/sidecar-kubelet/hack/tools/mdlinks/main.go", "a checkout of this repository (hack/tools/mdlinks/main.go is a path of the repository)"}}},
		{"a socket in a checkout, as a URL", "dial unix:///srv/x/_output/cluster/run/containerd.sock", []found{
			{"/srv/x/_output/cluster/run/containerd.sock", "a checkout's _output"}}},
		{"a file URL", "file:///home/bob/report.html", []found{{"/home/bob/report.html", "a home directory"}}},
		{"Windows", `C:\Users\bob\sidecar-kubelet and "D:\\build\\x" and E:/ci/x`, []found{
			{`C:\Users\bob\sidecar-kubelet`, "a Windows path, of one machine's disk"},
			{`D:\\build\\x`, "a Windows path, of one machine's disk"},
			{`E:/ci/x`, "a Windows path, of one machine's disk"}}},
		{"two on a line, the node's left alone", "PATH=/usr/bin:/home/u/bin", []found{{"/home/u/bin", "a home directory"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := machinePaths(tc.line, repo)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(found{})); diff != "" {
				t.Errorf("machinePaths(%q) (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}
