package nodeimage

import (
	"archive/tar"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The stand-in base image: a tiny image shaped like a kind node image, for
// the tests and for trying `make node-image` where no real kind node image
// can be had (go run ./nodeimage/standin-base -o base.tar).
var (
	StandInCreated    = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	StandInEnv        = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "container=docker"}
	StandInEntrypoint = []string{"/usr/local/bin/entrypoint", "/sbin/init"}
	StandInCmd        = []string{"--log-level=info"}
	StandInStopSignal = "SIGRTMIN+3"
	StandInLabels     = map[string]string{"org.example.stand-in": "kind-node"}
	// The upstream kubelet the node image replaces.
	StandInKubelet = []byte("#!/bin/sh\necho 'Kubernetes v1.37.1 (upstream stand-in)'\n")
	// The times of /usr/bin in the two layers: the upper one must win.
	StandInUsrBinTimes = [2]time.Time{StandInCreated.Add(-2 * time.Hour), StandInCreated.Add(-time.Hour)}
)

// StandInBase builds the stand-in base image for linux/arch, as an OCI
// image: two layers (the first with /usr, /usr/bin, the upstream kubelet and
// /etc/os-release; the second with kubeadm, the entrypoint and /kind/version,
// and /usr/bin again with another time and mode 0775), and a config with the
// environment, entrypoint, cmd, stop signal and labels of StandIn*.
func StandInBase(arch string) (v1.Image, error) {
	t0, t1 := StandInUsrBinTimes[0], StandInUsrBinTimes[1]
	dir := func(n string, mode int64, t time.Time) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeDir, Name: n, Mode: mode, Uname: "root", Gname: "root", ModTime: t, Format: tar.FormatPAX}
	}
	file := func(n string, mode int64, data []byte) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: mode, Size: int64(len(data)), Uname: "root", Gname: "root", ModTime: t0, Format: tar.FormatPAX}
	}
	osRelease := []byte("PRETTY_NAME=\"stand-in kind node\"\nID=debian\n")
	kubeadm := []byte("#!/bin/sh\necho kubeadm stand-in\n")
	entrypoint := []byte("#!/bin/sh\nexec \"$@\"\n")
	version := []byte("v1.37.1\n")
	layers := []struct {
		hdrs []*tar.Header
		data map[string][]byte
	}{{
		hdrs: []*tar.Header{
			dir("etc/", 0o755, t0), file("etc/os-release", 0o644, osRelease),
			dir("usr/", 0o755, t0), dir("usr/bin/", 0o755, t0),
			file("usr/bin/kubelet", 0o755, StandInKubelet),
		},
		data: map[string][]byte{"etc/os-release": osRelease, "usr/bin/kubelet": StandInKubelet},
	}, {
		hdrs: []*tar.Header{
			dir("kind/", 0o755, t1), file("kind/version", 0o644, version),
			dir("./usr/bin/", 0o775, t1), file("usr/bin/kubeadm", 0o755, kubeadm),
			dir("usr/local/", 0o755, t1), dir("usr/local/bin/", 0o755, t1),
			file("usr/local/bin/entrypoint", 0o755, entrypoint),
		},
		data: map[string][]byte{"kind/version": version, "usr/bin/kubeadm": kubeadm, "usr/local/bin/entrypoint": entrypoint},
	}}

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for i, l := range layers {
		layer, err := layerFromFiles(l.hdrs, l.data, types.OCILayer)
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:   layer,
			History: v1.History{Created: v1.Time{Time: StandInCreated}, CreatedBy: fmt.Sprintf("stand-in layer %d", i+1)},
		})
		if err != nil {
			return nil, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: StandInCreated}
	cf.Config.Env = append([]string(nil), StandInEnv...)
	cf.Config.Entrypoint = append([]string(nil), StandInEntrypoint...)
	cf.Config.Cmd = append([]string(nil), StandInCmd...)
	cf.Config.StopSignal = StandInStopSignal
	cf.Config.Labels = map[string]string{}
	for k, v := range StandInLabels {
		cf.Config.Labels[k] = v
	}
	return mutate.ConfigFile(img, cf)
}
