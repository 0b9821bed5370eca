package kindconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	kind "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/nodeimage"
	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

const gate = "SidecarContainerOrdering"

// root is the repository's top, from hack/tools/kindconfig.
const root = "../../.."

// decode reads a kind config the way kind's own loader does
// (sigs.k8s.io/kind/pkg/internal/apis/config/encoding.Parse): apiVersion and
// kind first, then a strict decode into the v1alpha4 types with
// go.yaml.in/yaml/v3, unknown fields refused.
func decode(raw []byte) (*kind.Cluster, error) {
	var tm struct {
		Kind       string `yaml:"kind"`
		APIVersion string `yaml:"apiVersion"`
	}
	if err := yaml.Unmarshal(raw, &tm); err != nil {
		return nil, err
	}
	if tm.APIVersion != "kind.x-k8s.io/v1alpha4" || tm.Kind != "Cluster" {
		return nil, errors.New("not a kind.x-k8s.io/v1alpha4 Cluster: " + tm.APIVersion + " " + tm.Kind)
	}
	d := yaml.NewDecoder(bytes.NewReader(raw))
	d.KnownFields(true)
	c := &kind.Cluster{}
	if err := d.Decode(c); err != nil {
		return nil, err
	}
	var extra any
	if err := d.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	return c, nil
}

// pinnedVersion is the upstream release the build uses by default: the one
// hack/patches/k8s-version.sh resolves an unset K8S_VERSION to (the
// patches/vX.Y/UPSTREAM_VERSION of the newest minor pinned to a release).
func pinnedVersion(t *testing.T) string {
	t.Helper()
	v, err := release.Pinned(root, "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// placeholderImage is what the configs hold for the node image: make
// kind-up writes the pinned release's in (hack/lib/kind.sh kind_config), so
// that the release is written in UPSTREAM_VERSION only.
const placeholderImage = "sidecar-kubelet/node:pinned"

// generated is the config as make kind-up gives it to kind: kind_config of
// hack/lib/kind.sh, run on the file with image and CRI folder dir.
func generated(t *testing.T, file, image, dir string, evented bool) []byte {
	t.Helper()
	ev := "0"
	if evented {
		ev = "1"
	}
	cmd := exec.Command("bash", "-c", `source hack/lib.sh && kind_config "$@"`, "kind_config",
		filepath.Join("kind-config", file), image, dir, ev)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "K8S_VERSION=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kind_config %s: %v", file, err)
	}
	return out
}

// kubeletPatches decodes every kubeadm config patch that targets the
// KubeletConfiguration, strictly, into the kubelet's own v1beta1 type.
func kubeletPatches(t *testing.T, patches []string) []kubeletv1beta1.KubeletConfiguration {
	t.Helper()
	var out []kubeletv1beta1.KubeletConfiguration
	for i, p := range patches {
		var tm struct {
			Kind       string `json:"kind"`
			APIVersion string `json:"apiVersion"`
		}
		if err := sigsyaml.Unmarshal([]byte(p), &tm); err != nil {
			t.Fatalf("kubeadmConfigPatches[%d]: %v", i, err)
		}
		if tm.Kind != "KubeletConfiguration" {
			continue
		}
		// kind applies a patch to the generated document of the same kind
		// and, if the patch names one, the same apiVersion.
		if tm.APIVersion != kubeletv1beta1.SchemeGroupVersion.String() {
			t.Errorf("kubeadmConfigPatches[%d]: apiVersion %q, want %q (kind generates that one; another would not match)",
				i, tm.APIVersion, kubeletv1beta1.SchemeGroupVersion)
		}
		var kc kubeletv1beta1.KubeletConfiguration
		if err := sigsyaml.UnmarshalStrict([]byte(p), &kc); err != nil {
			t.Fatalf("kubeadmConfigPatches[%d] is not a valid KubeletConfiguration: %v", i, err)
		}
		out = append(out, kc)
	}
	return out
}

func TestKindConfigs(t *testing.T) {
	image := placeholderImage
	for _, tc := range []struct {
		file  string
		name  string
		roles []kind.NodeRole
	}{
		{"one-node.yaml", "sidecar-kubelet", []kind.NodeRole{kind.ControlPlaneRole}},
		{"three-node.yaml", "sidecar-kubelet-multi", []kind.NodeRole{kind.ControlPlaneRole, kind.WorkerRole, kind.WorkerRole}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, "kind-config", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := decode(raw)
			if err != nil {
				t.Fatalf("kind would refuse %s: %v", tc.file, err)
			}
			if c.Name != tc.name {
				t.Errorf("cluster name %q, want %q (the README's commands use it)", c.Name, tc.name)
			}

			var roles []kind.NodeRole
			for i, n := range c.Nodes {
				roles = append(roles, n.Role)
				if n.Image != image {
					t.Errorf("node %d (%s): image %q, want the placeholder %q (make kind-up writes the pinned release's in)", i, n.Role, n.Image, image)
				}
				if len(n.KubeadmConfigPatches) != 0 || len(n.KubeadmConfigPatchesJSON6902) != 0 {
					t.Errorf("node %d (%s) has kubeadm patches of its own; the gate is set once, cluster-wide", i, n.Role)
				}
			}
			if !reflect.DeepEqual(roles, tc.roles) {
				t.Errorf("node roles %v, want %v", roles, tc.roles)
			}

			// The gate goes to the kubelet alone: the API server and the
			// other components do not know it and would refuse to start.
			if _, ok := c.FeatureGates[gate]; ok {
				t.Errorf("cluster-level featureGates sets %s: kind passes those to every component", gate)
			}
			if len(c.KubeadmConfigPatchesJSON6902) != 0 {
				t.Errorf("unexpected JSON 6902 patches: %+v", c.KubeadmConfigPatchesJSON6902)
			}
			kcs := kubeletPatches(t, c.KubeadmConfigPatches)
			if len(kcs) != 1 {
				t.Fatalf("want one KubeletConfiguration patch, found %d", len(kcs))
			}
			// Upstream's defaults plus the fork's gate, nothing else:
			// EventedPLEG (alpha) only when the user asks for it, which
			// make kind-up adds (TestGeneratedKindConfigs).
			if want := map[string]bool{gate: true}; !reflect.DeepEqual(kcs[0].FeatureGates, want) {
				t.Errorf("the KubeletConfiguration patch sets featureGates %v, want %v", kcs[0].FeatureGates, want)
			}

			// kind's defaulting takes it (it would panic on a broken one).
			kind.SetDefaultsCluster(c)
			for _, n := range c.Nodes {
				if n.Image != image {
					t.Errorf("after kind's defaulting a node's image is %q", n.Image)
				}
			}
		})
	}
}

// TestGeneratedKindConfigs: what make kind-up gives kind (kind_config of
// hack/lib/kind.sh) is each config with the pinned release's node image on
// every node, each node's CRI folder mounted at /run/containerd, and the
// EventedPLEG gate only when KUBELET_FEATURE_GATES turns it on (EVENTED 1).
func TestGeneratedKindConfigs(t *testing.T) {
	image := nodeimage.DefaultName(pinnedVersion(t))
	for _, file := range []string{"one-node.yaml", "three-node.yaml"} {
		for _, evented := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, EventedPLEG %v", file, evented), func(t *testing.T) {
				c, err := decode(generated(t, file, image, "/k/cri", evented))
				if err != nil {
					t.Fatalf("kind would refuse the generated %s: %v", file, err)
				}
				for i, n := range c.Nodes {
					if n.Image != image {
						t.Errorf("node %d: image %q, want %q (make node-image's name for the pinned release)", i, n.Image, image)
					}
					want := []kind.Mount{{HostPath: fmt.Sprintf("/k/cri/%d", i), ContainerPath: "/run/containerd"}}
					if diff := cmp.Diff(want, n.ExtraMounts); diff != "" {
						t.Errorf("node %d: extraMounts (-want +got):\n%s", i, diff)
					}
				}
				kcs := kubeletPatches(t, c.KubeadmConfigPatches)
				if len(kcs) != 1 {
					t.Fatalf("want one KubeletConfiguration patch, found %d", len(kcs))
				}
				want := map[string]bool{gate: true}
				if evented {
					want["EventedPLEG"] = true
				}
				if diff := cmp.Diff(want, kcs[0].FeatureGates); diff != "" {
					t.Errorf("featureGates (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDecodeIsStrict: the decoding above refuses what kind refuses, so a
// misspelt field in a config fails the test instead of being dropped.
func TestDecodeIsStrict(t *testing.T) {
	for name, raw := range map[string]string{
		"misspelt field": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatch: []\n",
		"node field":     "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  imag: x\n",
		"old apiVersion": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha3\n",
	} {
		if _, err := decode([]byte(raw)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	// And a KubeletConfiguration patch with a misspelt field is refused too.
	bad := "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nfeatureGate:\n  " + gate + ": true\n"
	var kc kubeletv1beta1.KubeletConfiguration
	if err := sigsyaml.UnmarshalStrict([]byte(bad), &kc); err == nil || !strings.Contains(err.Error(), "featureGate") {
		t.Errorf("a misspelt KubeletConfiguration field: want an error naming it, got %v", err)
	}
}
