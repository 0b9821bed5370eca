package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/buildcache"
)

// FromBase builds the node image of kind's node image of the release with
// the patched kubelet at /usr/bin/kubelet (make node-image), by one of
// three paths, one result:
//
//	BaseTar   hermetic (no Docker engine): the base is an image tarball
//	          (`docker save`, `crane pull`); Build appends the kubelet layer
//	docker    when a Docker engine answers: `docker build` of Dockerfile
//	          FROM BaseRef (default PublishedBase, else kindest/node:vX.Y.Z),
//	          then `docker save`; the image stays in the engine, ready for kind
//	BaseRef   else: the base is fetched from its registry (credentials from
//	          ~/.docker/config.json) and the kubelet layer appended
//
// written as Project.Out. Its stamp keeps the key of the inputs; for
// BaseRef, which may move, the base is fetched every time.
type FromBase struct {
	Project
	BaseTar, BaseTag, BaseRef string
	// PublishedBase is kind's published node image of the release, pinned
	// by digest, or "" when kind publishes none.
	PublishedBase string
	// Kubelet is the kubelet to put in; "" builds the static one (Parts).
	Kubelet string
	Parts   *Parts
	// FallbackVersion labels a kubelet that cannot run here.
	FallbackVersion string
	// Dockerfile is hack/kind/node-image/Dockerfile.
	Dockerfile string
	// Arch picks the image of a multi-platform BaseRef (default: the
	// kubelet's).
	Arch string
}

// basePath is which of FromBase's paths a build takes.
type basePath string

const (
	pathTar    basePath = "tar"
	pathDocker basePath = "docker"
	pathRef    basePath = "ref"
)

func (b *FromBase) path(ctx context.Context) (basePath, error) {
	v := "v" + b.Release
	switch {
	case b.BaseTar != "":
		if _, err := os.Stat(b.BaseTar); err != nil {
			return "", fmt.Errorf(`BASE_TAR=%s: no such file. Get the kind node image as a tarball:
  on a machine with Docker:  docker pull kindest/node:%s && docker save kindest/node:%s -o node.tar
  or with crane:             crane pull kindest/node:%s node.tar`, b.BaseTar, v, v, v)
		}
		abs, err := filepath.Abs(b.BaseTar)
		if err != nil {
			return "", err
		}
		b.BaseTar = abs
		return pathTar, nil
	case EngineAnswers(ctx):
		if b.BaseRef == "" {
			b.BaseRef = b.PublishedBase
		}
		if b.BaseRef == "" {
			b.BaseRef = "kindest/node:" + v
		}
		return pathDocker, nil
	case b.BaseRef != "":
		return pathRef, nil
	}
	return "", fmt.Errorf(`no Docker engine answers here (docker info), so make node-image needs the base kind node image
  as a tarball: BASE_TAR=<file>, e.g. from 'docker save kindest/node:%s -o node.tar' on a machine
  with Docker, or from 'crane pull kindest/node:%s node.tar'; or from a registry:
  BASE_REF=<reference>, e.g. BASE_REF=kindest/node:%s`, v, v, v)
}

// Build builds the node image unless it is fresh.
func (b FromBase) Build(ctx context.Context) error {
	path, err := b.path(ctx)
	if err != nil {
		return err
	}
	kubelet := b.Kubelet
	if kubelet == "" {
		// Static, so that it runs on the base's glibc whatever the build
		// machine's.
		if err := b.Parts.Kubelet(ctx); err != nil {
			return err
		}
		kubelet = filepath.Join(b.Parts.Dir, "bin", "kubelet")
	} else if kubelet, err = filepath.Abs(kubelet); err != nil {
		return err
	}
	if _, err := os.Stat(kubelet); err != nil {
		return fmt.Errorf("KUBELET_BIN=%s: %w", b.Kubelet, err)
	}
	// The version the kubelet reports, computed as version_stamp stamps it
	// if the binary cannot run here (built for another architecture).
	fallback := b.FallbackVersion
	if fallback == "" && len(b.SeriesHash) >= 12 {
		fallback = "v" + b.Release + "-sidecar-kubelet+" + b.SeriesHash[:12]
	}
	version, err := kubeletVersion(ctx, kubelet, b.Release, fallback)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.KindDir, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(b.KindDir, ".node-image.")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if path == pathDocker {
		return b.dockerBuild(ctx, work, kubelet, version)
	}

	o := Options{Kubelet: kubelet, UpstreamVersion: "v" + b.Release, SeriesHash: b.SeriesHash, ImageVersion: version,
		// A base built from sources names its own build, which this image
		// is not: LoadIntoEngine must not take one for the other.
		Labels: map[string]string{LabelBuild: ""}}
	if path == pathRef {
		// The reference may move: fetched and built every time.
		if err := b.stamp().Forget(); err != nil {
			return err
		}
		arch := b.Arch
		if arch == "" {
			arch = KubeletArch(kubelet)
		}
		Logf("%s = %s + %s", b.name(), b.BaseRef, kubelet)
		base, err := LoadBaseRemote(ctx, b.BaseRef, arch)
		if err != nil {
			return err
		}
		return b.assemble(base, o)
	}

	var d buildcache.Description
	d.Line("path", path).Line("name", b.name()).Line("version", "v"+b.Release, b.SeriesHash, version).Line("base-tar", b.BaseTag)
	if err := d.FileSum(b.BaseTar); err != nil {
		return err
	}
	if err := d.FileSum(kubelet); err != nil {
		return err
	}
	if err := describeBuilder(&d); err != nil {
		return err
	}
	built, err := buildcache.Step{Stamp: b.stamp(), Key: d.Key(), Outputs: []string{b.Out()}}.Run(func() error {
		Logf("%s = %s + %s", b.name(), b.BaseTar, kubelet)
		base, err := LoadBaseTarball(b.BaseTar, b.BaseTag)
		if err != nil {
			return err
		}
		return b.assemble(base, o)
	})
	if err != nil {
		return err
	}
	if !built {
		Logf("%s is up to date (%s)", b.Out(), b.name())
	}
	return nil
}

func (b FromBase) assemble(base v1.Image, o Options) error {
	if err := Assemble(base, b.name(), b.Out(), o); err != nil {
		return err
	}
	Logf("load it with: docker load -i %s", b.Out())
	return nil
}

// dockerBuild builds the image in the engine (Dockerfile FROM BaseRef),
// checks that the kubelet starts in it, and saves it as Out unless the
// engine's image is the one saved there already.
func (b FromBase) dockerBuild(ctx context.Context, work, kubelet, version string) error {
	data, err := os.ReadFile(kubelet)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "kubelet"), data, 0o755); err != nil {
		return err
	}
	revision, err := b.Revision(ctx)
	if err != nil {
		return err
	}
	revision = strings.TrimSuffix(revision, "-dirty")
	iidFile := filepath.Join(work, "iid")
	Logf("docker build %s FROM %s", b.name(), b.BaseRef)
	if err := (Command{Name: "docker", Args: []string{"build", "-f", b.Dockerfile, "--iidfile", iidFile,
		"--build-arg", "BASE=" + b.BaseRef, "--build-arg", "UPSTREAM_VERSION=v" + b.Release,
		"--build-arg", "SERIES_HASH=" + b.SeriesHash, "--build-arg", "IMAGE_VERSION=" + version,
		"--build-arg", "REVISION=" + revision, "-t", b.name(), work}}).Run(ctx); err != nil {
		return err
	}
	iid, err := os.ReadFile(iidFile)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(string(iid))
	// The kubelet must start in the image (a dynamically linked one built
	// on a newer distribution fails there with "GLIBC_2.xx not found").
	got, err := Command{Name: "docker", Args: []string{"run", "--rm", "--entrypoint", "/usr/bin/kubelet", id, "--version"}, Quiet: true}.Output(ctx)
	if err != nil {
		_ = Command{Name: "docker", Args: []string{"rmi", b.name()}, Quiet: true}.Run(ctx)
		return fmt.Errorf("the kubelet does not start in %s: %w\n  build it static (the default here; KUBELET_BIN= overrides it) or on a distribution no newer than the node image's", b.BaseRef, err)
	}
	Logf("the kubelet starts in the image: %s", got)
	var d buildcache.Description
	d.Line("docker").Line(b.name()).Line(id)
	built, err := buildcache.Step{Stamp: b.stamp(), Key: d.Key(), Outputs: []string{b.Out()}}.Run(func() error {
		tmp := filepath.Join(work, "node.tar")
		if err := (Command{Name: "docker", Args: []string{"save", b.name(), "-o", tmp}, Quiet: true}).Run(ctx); err != nil {
			return err
		}
		return os.Rename(tmp, b.Out())
	})
	if err != nil {
		return err
	}
	if built {
		Logf("wrote %s (%s, %s); it is in this Docker engine too", b.Out(), b.name(), id)
	} else {
		Logf("%s is up to date (%s, %s)", b.Out(), b.name(), id)
	}
	return nil
}
