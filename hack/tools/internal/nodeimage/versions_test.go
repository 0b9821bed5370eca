package nodeimage

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubeadm v1.37's `kubeadm config images list`, shaped.
var kubeadmImages = []string{
	"registry.k8s.io/kube-apiserver:v1.99.1",
	"registry.k8s.io/kube-controller-manager:v1.99.1",
	"registry.k8s.io/kube-scheduler:v1.99.1",
	"registry.k8s.io/kube-proxy:v1.99.1",
	"registry.k8s.io/coredns/coredns:v1.14.6",
	"registry.k8s.io/pause:3.10.1",
	"registry.k8s.io/etcd:3.7.0-0",
}

func TestImageOf(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		wantErr    bool
	}{
		{name: "etcd", want: "registry.k8s.io/etcd:3.7.0-0"},
		{name: "coredns", want: "registry.k8s.io/coredns/coredns:v1.14.6"},
		{name: "kube-proxy", want: "registry.k8s.io/kube-proxy:v1.99.1"},
		{name: "pause", want: "registry.k8s.io/pause:3.10.1"},
		// "kube" is no component: only a whole last path element matches.
		{name: "kube", wantErr: true},
		{name: "flannel", wantErr: true},
	} {
		got, err := ImageOf(kubeadmImages, tc.name)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ImageOf(%q) = %q, %v; want %q (an error: %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestEtcdVersion(t *testing.T) {
	for _, tc := range []struct {
		image, want string
	}{
		{"registry.k8s.io/etcd:3.7.0-0", "v3.7.0"},
		{"registry.k8s.io/etcd:3.5.21-0", "v3.5.21"},
		{"registry.k8s.io/etcd:3.6.5-2", "v3.6.5"},
		{"localhost:5000/etcd:3.6.5", "v3.6.5"},
		{"registry.k8s.io/etcd:v3.6.5-0", "v3.6.5"},
	} {
		if got := EtcdVersion(ImageTag(tc.image)); got != tc.want {
			t.Errorf("EtcdVersion(ImageTag(%q)) = %q, want %q", tc.image, got, tc.want)
		}
	}
}

func TestImageTag(t *testing.T) {
	for _, tc := range []struct{ image, want string }{
		{"registry.k8s.io/coredns/coredns:v1.14.6", "v1.14.6"},
		{"localhost:5000/pause:3.10", "3.10"},
		{"localhost:5000/pause", ""},
	} {
		if got := ImageTag(tc.image); got != tc.want {
			t.Errorf("ImageTag(%q) = %q, want %q", tc.image, got, tc.want)
		}
	}
}

func TestNewestPatch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		minor    string
		want     string
	}{
		{name: "the newest patch, numerically", minor: "v3.7",
			versions: []string{"v3.6.9", "v3.7.0", "v3.7.2", "v3.7.10", "v3.8.0"}, want: "v3.7.10"},
		{name: "pre-releases are not taken", minor: "v3.7",
			versions: []string{"v3.7.0-alpha.0", "v3.7.0-rc.1", "v3.7.1-rc.0"}, want: ""},
		{name: "a pre-release beside a release", minor: "v1.14",
			versions: []string{"v1.14.1", "v1.14.2-rc.1", "v1.13.9"}, want: "v1.14.1"},
		{name: "no release of the minor", minor: "v0.1",
			versions: []string{"v0.0.30", "v0.0.34", "v0.2.0"}, want: ""},
		{name: "a minor is not a prefix match", minor: "v3.1",
			versions: []string{"v3.10.0", "v3.1.5"}, want: "v3.1.5"},
		{name: "nothing listed", minor: "v3.7", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, NewestPatch(tc.versions, tc.minor)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStorageList(t *testing.T) {
	want := StorageList{Provisioner: "sidecar-kubelet.local/local-path-provisioner:v0.0.34", Helper: "sidecar-kubelet.local/local-path-helper:0123456789ab"}
	got, err := ParseStorageList(want.String())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := ParseStorageList("local-path-provisioner x\n"); err == nil {
		t.Error("a list without the helper parsed")
	}
}
