// Package nodeimage is the builder of sidecar-kubelet's kind node images,
// as kind's pkg/build/nodeimage is kind's: every step, each cached by
// hack/tools/internal/buildcache, shelling out to go, docker, debootstrap
// and tar where kind would too. hack/tools/nodeimage is its command line.
//
//   - Parts: the static Kubernetes binaries of the patched work tree,
//     containerd, and the images kubeadm asks for (parts.go);
//   - RootfsCache: Debian root file systems by debootstrap (rootfs.go);
//   - NodeFiles: the node's own files as a layer (nodefiles.go);
//   - FromSources: the node image from all of that (build.go), loaded into
//     the engine (engine.go);
//   - FromBase: kind's node image of the release with the patched kubelet,
//     from an image tarball, a registry, or docker build (frombase.go).
//
// The image itself: a base kind node image (kindest/node:vX.Y.Z, or one
// built from sources) with one layer appended that holds the kubelet at
// /usr/bin/kubelet (Build). Every base layer and the base config
// (entrypoint, cmd, env, stop signal, labels, ...) are kept; labels naming
// the upstream version and the patch series' hash are added. The image
// format is go-containerregistry's business (mutate, tarball, remote); this
// package only writes the layers' tar streams.
package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

// The labels the node image carries.
const (
	LabelUpstreamVersion = "io.sidecar-kubelet.upstream-version"
	LabelSeriesHash      = "io.sidecar-kubelet.series-hash"
	LabelImageVersion    = "org.opencontainers.image.version"
)

// KubeletPath is where kind node images keep the kubelet (kubeadm's
// kubelet.service runs /usr/bin/kubelet).
const KubeletPath = "usr/bin/kubelet"

// DefaultName is the image name `make node-image` gives the result for an
// upstream version ("v1.37.1" or "1.37.1"); kind-config/*.yaml use it.
func DefaultName(upstreamVersion string) string {
	return "sidecar-kubelet/node:v" + strings.TrimPrefix(upstreamVersion, "v")
}

var reHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Options say what goes into the node image besides the base.
type Options struct {
	// Kubelet is the path of the patched kubelet binary.
	Kubelet string
	// UpstreamVersion is the upstream release the series is applied to,
	// "vX.Y.Z", or "vX.Y.Z-pre" for a series pinned to a pre-release
	// (label io.sidecar-kubelet.upstream-version).
	UpstreamVersion string
	// SeriesHash is the patch series' sha256 as hack/lib.sh series_hash
	// computes it (label io.sidecar-kubelet.series-hash).
	SeriesHash string
	// ImageVersion, if set, becomes org.opencontainers.image.version (the
	// kubelet's own version string, e.g. v1.37.1-sidecar-kubelet+0123456789ab).
	ImageVersion string
	// Labels are added as they are (the base the image came from, the
	// project's commit); one with an empty value is removed from the
	// base's.
	Labels map[string]string
}

func (o Options) validate() error {
	if o.Kubelet == "" {
		return errors.New("no kubelet binary given")
	}
	if _, err := release.Parse(o.UpstreamVersion); err != nil || !strings.HasPrefix(o.UpstreamVersion, "v") {
		return fmt.Errorf("upstream version %q: want vX.Y.Z or vX.Y.Z-pre, e.g. v1.37.1", o.UpstreamVersion)
	}
	if !reHash.MatchString(o.SeriesHash) {
		return fmt.Errorf("series hash %q: want 64 lower-case hex digits (hack/lib.sh series_hash)", o.SeriesHash)
	}
	return nil
}

// Build returns base with one layer appended that holds the kubelet at
// /usr/bin/kubelet (mode 0755, owned by 0:0), and with the labels added to
// the base config. The layer repeats the base's /usr and /usr/bin folder
// entries (mode, owner, time) so that applying it changes nothing but the
// kubelet. The result is a function of its inputs: the new entries' times
// and the history entry's time are the base image's creation time.
func Build(base v1.Image, o Options) (v1.Image, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	cf, err := base.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the base image's config: %w", err)
	}
	kubelet, err := readKubelet(o.Kubelet)
	if err != nil {
		return nil, err
	}
	if err := checkArch(kubelet, cf); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Kubelet, err)
	}
	if err := checkRuns(kubelet, base); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Kubelet, err)
	}
	created := cf.Created.Time
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC()

	dirs, err := baseDirs(base, path.Dir(KubeletPath))
	if err != nil {
		return nil, fmt.Errorf("reading the base image's layers: %w", err)
	}
	hdrs := append(dirs, &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     KubeletPath,
		Mode:     0o755,
		Uid:      0,
		Gid:      0,
		Uname:    "root",
		Gname:    "root",
		Size:     int64(len(kubelet)),
		ModTime:  created,
		Format:   tar.FormatPAX,
	})
	layer, err := layerFromFiles(hdrs, map[string][]byte{KubeletPath: kubelet}, layerMediaType(base))
	if err != nil {
		return nil, err
	}

	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "COPY kubelet /usr/bin/kubelet # sidecar-kubelet " + o.UpstreamVersion,
			Comment:   "the patched kubelet (sidecar-kubelet)",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("appending the kubelet layer: %w", err)
	}
	config := *cf.Config.DeepCopy()
	labels := make(map[string]string, len(config.Labels)+3)
	for k, v := range config.Labels {
		labels[k] = v
	}
	labels[LabelUpstreamVersion] = o.UpstreamVersion
	labels[LabelSeriesHash] = o.SeriesHash
	if o.ImageVersion != "" {
		labels[LabelImageVersion] = o.ImageVersion
	}
	for k, v := range o.Labels {
		if v == "" {
			delete(labels, k)
			continue
		}
		labels[k] = v
	}
	config.Labels = labels
	if img, err = mutate.Config(img, config); err != nil {
		return nil, fmt.Errorf("setting the labels: %w", err)
	}
	return img, nil
}

func readKubelet(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("kubelet binary: %w (run `make kubelet`)", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("kubelet binary %s is not a regular file", p)
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("kubelet binary %s is empty", p)
	}
	return os.ReadFile(p)
}

// elfArch maps an ELF machine to the image config's architecture.
var elfArch = map[elf.Machine]string{
	elf.EM_X86_64:  "amd64",
	elf.EM_AARCH64: "arm64",
	elf.EM_ARM:     "arm",
	elf.EM_386:     "386",
	elf.EM_PPC64:   "ppc64le",
	elf.EM_S390:    "s390x",
	elf.EM_RISCV:   "riscv64",
}

// ELFArch returns the image architecture (amd64, arm64, ...) an ELF binary
// is for, or "" if b is not an ELF file.
func ELFArch(b []byte) string {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	defer f.Close()
	if a, ok := elfArch[f.Machine]; ok {
		return a
	}
	return f.Machine.String()
}

// checkArch refuses an ELF kubelet built for another architecture than the
// base image's: the node would not start, and much later.
func checkArch(kubelet []byte, cf *v1.ConfigFile) error {
	got := ELFArch(kubelet)
	if got == "" || cf.Architecture == "" || got == cf.Architecture {
		return nil
	}
	return fmt.Errorf("the kubelet is built for %s, the base image is %s/%s (build with GOARCH=%s, or pick the base image's %s variant)",
		got, cf.OS, cf.Architecture, cf.Architecture, got)
}

// clean turns a tar entry name ("./usr/bin/", "/usr/bin") into "usr/bin".
func clean(n string) string {
	return strings.TrimPrefix(path.Clean("/"+n), "/")
}

// baseDirs returns tar headers for dir and each of its parents, outermost
// first, copied from the topmost base layer that has the folder (mode, owner,
// time, extended attributes), so that the new layer leaves them as they were.
// A folder the base does not have gets mode 0755, owner 0:0.
func baseDirs(base v1.Image, dir string) ([]*tar.Header, error) {
	var want []string
	for d := clean(dir); d != "."; d = path.Dir(d) {
		want = append([]string{d}, want...)
	}
	found := map[string]*tar.Header{}
	layers, err := base.Layers()
	if err != nil {
		return nil, err
	}
	for i := len(layers) - 1; i >= 0 && len(found) < len(want); i-- {
		if err := scanLayer(layers[i], want, found); err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
	}
	hdrs := make([]*tar.Header, 0, len(want))
	for _, d := range want {
		h, ok := found[d]
		if !ok {
			h = &tar.Header{Mode: 0o755, Uname: "root", Gname: "root", ModTime: time.Unix(0, 0)}
		}
		hdrs = append(hdrs, &tar.Header{
			Typeflag:   tar.TypeDir,
			Name:       d + "/",
			Mode:       h.Mode,
			Uid:        h.Uid,
			Gid:        h.Gid,
			Uname:      h.Uname,
			Gname:      h.Gname,
			ModTime:    h.ModTime,
			PAXRecords: xattrs(h.PAXRecords),
			Format:     tar.FormatPAX,
		})
	}
	return hdrs, nil
}

// xattrs keeps the extended attributes of a header's PAX records (the other
// records restate header fields, which are set directly).
func xattrs(recs map[string]string) map[string]string {
	var out map[string]string
	for k, v := range recs {
		if strings.HasPrefix(k, "SCHILY.xattr.") || strings.HasPrefix(k, "LIBARCHIVE.xattr.") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// scanLayer records in found the folder entries of l named in want that
// found does not hold yet (an upper layer's entry wins).
func scanLayer(l v1.Layer, want []string, found map[string]*tar.Header) error {
	rc, err := l.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	here := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeDir {
			continue
		}
		n := clean(h.Name)
		for _, w := range want {
			if n == w {
				here[n] = h
			}
		}
	}
	for n, h := range here {
		if _, ok := found[n]; !ok {
			found[n] = h
		}
	}
	return nil
}

// layerMediaType matches the new layer to the base manifest's flavour.
func layerMediaType(base v1.Image) types.MediaType {
	if mt, err := base.MediaType(); err == nil && mt == types.OCIManifestSchema1 {
		return types.OCILayer
	}
	return types.DockerLayer
}

// layerFromFiles makes a layer of the given entries, in order; a regular
// file's content comes from data[its header's Name]. The tar stream is built
// once, in memory; go-containerregistry computes digests and compresses it.
func layerFromFiles(hdrs []*tar.Header, data map[string][]byte, mt types.MediaType) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", h.Name, err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(data[h.Name]); err != nil {
				return nil, fmt.Errorf("layer entry %s: %w", h.Name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(mt), tarball.WithCompressedCaching)
}

// LoadBaseTarball reads the base image from an image tarball: the output of
// `docker save` or `crane pull` (or of tarball.Write). tag picks the image
// when the tarball holds several ("" when it holds one).
func LoadBaseTarball(p, tag string) (v1.Image, error) {
	hint := "want an image tarball, e.g. from `docker save kindest/node:vX.Y.Z -o node.tar` or `crane pull kindest/node:vX.Y.Z node.tar`"
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("base image tarball: %w (%s)", err, hint)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("base image tarball %s is not a regular file (%s)", p, hint)
	}
	var t *name.Tag
	if tag != "" {
		nt, err := name.NewTag(tag)
		if err != nil {
			return nil, fmt.Errorf("base image tag: %w", err)
		}
		t = &nt
	}
	img, err := tarball.ImageFromPath(p, t)
	if err != nil {
		return nil, fmt.Errorf("%s is not a usable image tarball: %w (%s; a tarball of several images needs --base-tag)", p, err, hint)
	}
	// Read the manifest and config now, so that a broken tarball fails here
	// with its name rather than halfway through writing the output.
	if _, err := img.Manifest(); err != nil {
		return nil, fmt.Errorf("%s: reading the image manifest: %w", p, err)
	}
	if _, err := img.ConfigFile(); err != nil {
		return nil, fmt.Errorf("%s: reading the image config: %w", p, err)
	}
	return img, nil
}

// LoadBaseRemote fetches the base image from a registry, resolving a
// multi-platform index to the linux/arch image. Credentials come from the
// Docker config (~/.docker/config.json), as for docker and crane.
func LoadBaseRemote(ctx context.Context, ref, arch string, opts ...remote.Option) (v1.Image, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("base image reference: %w", err)
	}
	opts = append([]remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}),
	}, opts...)
	img, err := remote.Image(r, opts...)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", r, err)
	}
	return img, nil
}

// Write writes img as an image tarball tagged tag (docker save's format,
// which `docker load`, `kind load image-archive` and `ctr images import`
// take), through a temporary file beside out, so out is never half written.
func Write(out, tag string, img v1.Image) error {
	t, err := name.NewTag(tag)
	if err == nil && !strings.HasSuffix(tag, ":"+t.TagStr()) {
		err = errors.New("no tag")
	}
	if err != nil {
		return fmt.Errorf("image name %q: %w (want REPO:TAG)", tag, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := tarball.WriteToFile(tmp.Name(), t, img); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
