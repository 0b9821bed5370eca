package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

const (
	baseTag    = "sidecar-kubelet.local/stand-in-node:v1.37.1"
	upstream   = "v1.37.1"
	seriesHash = "8e07e70a3a04c5a1f0e3b9f4d2c6a8e1b7d5c3f9a0e2b4d6c8f1a3e5b7d9c0f2"
	imgVersion = "v1.37.1-sidecar-kubelet+8e07e70a3a04"
)

// fakeKubelet is the "patched kubelet" of the tests: not an ELF file, so
// the architecture check stays out of the way.
var fakeKubelet = []byte("#!/bin/sh\necho 'Kubernetes v1.37.1-sidecar-kubelet+8e07e70a3a04'\n# patched\n")

// fixture writes the stand-in base as an image tarball and the fake kubelet,
// and returns their paths.
func fixture(t *testing.T, arch string) (baseTar, kubelet string) {
	t.Helper()
	dir := t.TempDir()
	base, err := StandInBase(arch)
	if err != nil {
		t.Fatalf("StandInBase: %v", err)
	}
	baseTar = filepath.Join(dir, "base.tar")
	if err := Write(baseTar, baseTag, base); err != nil {
		t.Fatalf("writing the base tarball: %v", err)
	}
	kubelet = filepath.Join(dir, "kubelet")
	if err := os.WriteFile(kubelet, fakeKubelet, 0o600); err != nil { // mode 0600: the image must say 0755 anyway
		t.Fatal(err)
	}
	return baseTar, kubelet
}

func options(kubelet string) Options {
	return Options{Kubelet: kubelet, UpstreamVersion: upstream, SeriesHash: seriesHash, ImageVersion: imgVersion}
}

type entry struct {
	hdr  *tar.Header
	data []byte
}

// entries reads a tar stream into its entries, keyed by cleaned name, and
// their names in order.
func entries(t *testing.T, rc io.ReadCloser) (map[string]entry, []string) {
	t.Helper()
	defer rc.Close()
	m := map[string]entry{}
	var order []string
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m, order
		}
		if err != nil {
			t.Fatalf("reading tar: %v", err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("reading %s: %v", h.Name, err)
		}
		n := clean(h.Name)
		m[n] = entry{h, b}
		order = append(order, n)
	}
}

func layerEntries(t *testing.T, l v1.Layer) (map[string]entry, []string) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatalf("layer: %v", err)
	}
	return entries(t, rc)
}

func digests(t *testing.T, img v1.Image) (digests, diffIDs []v1.Hash) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatalf("layers: %v", err)
	}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		id, err := l.DiffID()
		if err != nil {
			t.Fatal(err)
		}
		digests, diffIDs = append(digests, d), append(diffIDs, id)
	}
	return digests, diffIDs
}

// TestBuildFromTarball is the hermetic path end to end: stand-in base
// tarball in, node image tarball out, and the output checked by reading it
// back through go-containerregistry.
func TestBuildFromTarball(t *testing.T) {
	baseTar, kubelet := fixture(t, runtime.GOARCH)
	base, err := LoadBaseTarball(baseTar, "")
	if err != nil {
		t.Fatalf("LoadBaseTarball: %v", err)
	}
	img, err := Build(base, options(kubelet))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	out := filepath.Join(t.TempDir(), "images", "node-v1.37.1.tar")
	name := DefaultName(upstream)
	if err := Write(out, name, img); err != nil {
		t.Fatalf("Write: %v", err)
	}

	// The tarball loads back, by its tag too, and is a valid image (every
	// digest, diff ID and size checked against the content).
	tag, err := nameTag(name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("loading the output back: %v", err)
	}
	if err := validate.Image(got); err != nil {
		t.Fatalf("the output is not a valid image: %v", err)
	}

	// The name: docker load and kind load take the tag from manifest.json.
	m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(out) })
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || !reflect.DeepEqual(m[0].RepoTags, []string{"sidecar-kubelet/node:v1.37.1"}) {
		t.Errorf("manifest.json: want one image tagged sidecar-kubelet/node:v1.37.1, got %+v", m)
	}

	// Every base layer, in order, then one more.
	baseDigests, baseDiffIDs := digests(t, base)
	gotDigests, gotDiffIDs := digests(t, got)
	if len(baseDigests) != 2 {
		t.Fatalf("the stand-in base should have 2 layers, has %d", len(baseDigests))
	}
	if len(gotDigests) != len(baseDigests)+1 {
		t.Fatalf("want %d layers, got %d", len(baseDigests)+1, len(gotDigests))
	}
	if !reflect.DeepEqual(gotDigests[:len(baseDigests)], baseDigests) {
		t.Errorf("base layer digests changed:\nbase %v\ngot  %v", baseDigests, gotDigests)
	}
	if !reflect.DeepEqual(gotDiffIDs[:len(baseDiffIDs)], baseDiffIDs) {
		t.Errorf("base layer diff IDs changed:\nbase %v\ngot  %v", baseDiffIDs, gotDiffIDs)
	}

	// The new layer: /usr and /usr/bin as in the base (its upper layer for
	// /usr/bin), and the kubelet.
	layers, err := got.Layers()
	if err != nil {
		t.Fatal(err)
	}
	last, order := layerEntries(t, layers[len(layers)-1])
	if want := []string{"usr", "usr/bin", "usr/bin/kubelet"}; !reflect.DeepEqual(order, want) {
		t.Errorf("new layer's entries: want %v, got %v", want, order)
	}
	checkDir(t, last["usr"].hdr, 0o755, StandInUsrBinTimes[0])
	checkDir(t, last["usr/bin"].hdr, 0o775, StandInUsrBinTimes[1])
	checkKubelet(t, "new layer", last["usr/bin/kubelet"])

	// The flattened file system: our kubelet, the rest of the base intact.
	fs, _ := entries(t, mutate.Extract(got))
	checkKubelet(t, "flattened image", fs["usr/bin/kubelet"])
	for _, p := range []string{"usr/bin/kubeadm", "usr/local/bin/entrypoint", "etc/os-release", "kind/version"} {
		if _, ok := fs[p]; !ok {
			t.Errorf("flattened image lost the base's %s", p)
		}
	}

	// The config: the base's, plus the labels.
	cf, err := got.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if !reflect.DeepEqual(c.Entrypoint, StandInEntrypoint) || !reflect.DeepEqual(c.Cmd, StandInCmd) ||
		!reflect.DeepEqual(c.Env, StandInEnv) || c.StopSignal != StandInStopSignal {
		t.Errorf("base config not kept: entrypoint %q cmd %q env %q stop signal %q", c.Entrypoint, c.Cmd, c.Env, c.StopSignal)
	}
	wantLabels := map[string]string{
		"org.example.stand-in":                "kind-node",
		"io.sidecar-kubelet.upstream-version": upstream,
		"io.sidecar-kubelet.series-hash":      seriesHash,
		"org.opencontainers.image.version":    imgVersion,
	}
	if !reflect.DeepEqual(c.Labels, wantLabels) {
		t.Errorf("labels: want %v, got %v", wantLabels, c.Labels)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || !cf.Created.Time.Equal(StandInCreated) {
		t.Errorf("platform or creation time changed: %s/%s %s", cf.OS, cf.Architecture, cf.Created)
	}
	if n := len(cf.History); n != 3 || !strings.Contains(cf.History[2].CreatedBy, "/usr/bin/kubelet") {
		t.Errorf("history: want the base's 2 entries and one for the kubelet, got %+v", cf.History)
	}
}

func nameTag(s string) (name.Tag, error) { return name.NewTag(s) }

func checkDir(t *testing.T, h *tar.Header, mode int64, mtime time.Time) {
	t.Helper()
	if h == nil {
		t.Error("folder entry missing")
		return
	}
	if h.Typeflag != tar.TypeDir || h.Mode != mode || h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(mtime) {
		t.Errorf("%s: want a folder, mode %o, 0:0, time %s; got type %c mode %o %d:%d time %s",
			h.Name, mode, mtime, h.Typeflag, h.Mode, h.Uid, h.Gid, h.ModTime)
	}
}

func checkKubelet(t *testing.T, where string, e entry) {
	t.Helper()
	if e.hdr == nil {
		t.Errorf("%s: no usr/bin/kubelet", where)
		return
	}
	if e.hdr.Typeflag != tar.TypeReg || e.hdr.Mode != 0o755 || e.hdr.Uid != 0 || e.hdr.Gid != 0 {
		t.Errorf("%s: usr/bin/kubelet: want a regular file, mode 755, owner 0:0; got type %c mode %o owner %d:%d",
			where, e.hdr.Typeflag, e.hdr.Mode, e.hdr.Uid, e.hdr.Gid)
	}
	if !bytes.Equal(e.data, fakeKubelet) {
		t.Errorf("%s: usr/bin/kubelet holds %q, want the patched kubelet %q", where, e.data, fakeKubelet)
	}
}

// TestBuildIsReproducible: the same inputs give the same image, byte for
// byte, so `make node-image` run twice gives the same digest.
func TestBuildIsReproducible(t *testing.T) {
	baseTar, kubelet := fixture(t, runtime.GOARCH)
	var ds []v1.Hash
	for range 2 {
		base, err := LoadBaseTarball(baseTar, "")
		if err != nil {
			t.Fatal(err)
		}
		img, err := Build(base, options(kubelet))
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if ds[0] != ds[1] {
		t.Errorf("two builds of the same inputs differ: %s, %s", ds[0], ds[1])
	}
}

// TestBuildOCIBase: on an OCI base the new layer is an OCI layer too, and
// the labels replace nothing but themselves.
func TestBuildOCIBase(t *testing.T) {
	_, kubelet := fixture(t, runtime.GOARCH)
	base, err := StandInBase(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	o := options(kubelet)
	o.ImageVersion = ""
	img, err := Build(base, o)
	if err != nil {
		t.Fatal(err)
	}
	// Through an OCI layout and back, which keeps the media types.
	p, err := layout.Write(t.TempDir(), empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if img, err = p.Image(d); err != nil {
		t.Fatal(err)
	}
	if err := validate.Image(img); err != nil {
		t.Fatalf("not a valid image: %v", err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIManifestSchema1 || m.Layers[len(m.Layers)-1].MediaType != types.OCILayer {
		t.Errorf("want an OCI manifest with an OCI layer on top, got %s with %s", m.MediaType, m.Layers[len(m.Layers)-1].MediaType)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cf.Config.Labels[LabelImageVersion]; ok {
		t.Errorf("no image version given, yet the label is set: %v", cf.Config.Labels)
	}
}

// TestBuildParentsMissingFromBase: a base without /usr gets folders 0755
// owned by root.
func TestBuildParentsMissingFromBase(t *testing.T) {
	_, kubelet := fixture(t, runtime.GOARCH)
	base, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{OS: "linux", Architecture: runtime.GOARCH})
	if err != nil {
		t.Fatal(err)
	}
	img, err := Build(base, options(kubelet))
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer, got %d (%v)", len(layers), err)
	}
	e, _ := layerEntries(t, layers[0])
	checkDir(t, e["usr"].hdr, 0o755, time.Unix(0, 0))
	checkDir(t, e["usr/bin"].hdr, 0o755, time.Unix(0, 0))
	checkKubelet(t, "layer", e["usr/bin/kubelet"])
}

// TestLoadBaseTarballErrors: a base that is missing or not an image fails
// early, naming the file and saying how to get a good one.
func TestLoadBaseTarballErrors(t *testing.T) {
	dir := t.TempDir()
	notTar := filepath.Join(dir, "not-a-tar")
	if err := os.WriteFile(notTar, []byte("hello, I am not a tarball\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A tar, but not an image tarball (no manifest.json).
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "hello.txt", Mode: 0o644, Size: 2})
	_, _ = tw.Write([]byte("hi"))
	_ = tw.Close()
	plainTar := filepath.Join(dir, "plain.tar")
	if err := os.WriteFile(plainTar, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	baseTar, _ := fixture(t, runtime.GOARCH)

	for _, tc := range []struct {
		name, path, tag string
		want            []string
	}{
		{"missing", filepath.Join(dir, "nope.tar"), "", []string{"nope.tar", "no such file", "docker save"}},
		{"folder", dir, "", []string{dir, "not a regular file", "docker save"}},
		{"not a tar", notTar, "", []string{notTar, "not a usable image tarball", "docker save"}},
		{"tar without manifest", plainTar, "", []string{plainTar, "not a usable image tarball", "manifest.json"}},
		{"tag not in tarball", baseTar, "example.com/other:v1", []string{"not a usable image tarball", "example.com/other:v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadBaseTarball(tc.path, tc.tag)
			if err == nil {
				t.Fatal("want an error, got none")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// The right tag picks the image.
	if _, err := LoadBaseTarball(baseTar, baseTag); err != nil {
		t.Errorf("by its tag: %v", err)
	}
}

// TestBuildOptionErrors: bad inputs are refused before any work.
func TestBuildOptionErrors(t *testing.T) {
	_, kubelet := fixture(t, runtime.GOARCH)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	base, err := StandInBase(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no v", func(o *Options) { o.UpstreamVersion = "1.37.1" }, "want vX.Y.Z"},
		{"a minor", func(o *Options) { o.UpstreamVersion = "v1.37" }, "want vX.Y.Z"},
		{"an empty pre-release", func(o *Options) { o.UpstreamVersion = "v1.37.0-" }, "want vX.Y.Z or vX.Y.Z-pre"},
		{"build metadata", func(o *Options) { o.UpstreamVersion = "v1.37.1+abc" }, "want vX.Y.Z"},
		{"short hash", func(o *Options) { o.SeriesHash = "8e07e70a3a04" }, "64 lower-case hex"},
		{"no kubelet", func(o *Options) { o.Kubelet = "" }, "no kubelet"},
		{"missing kubelet", func(o *Options) { o.Kubelet = "/nonexistent/kubelet" }, "make kubelet"},
		{"empty kubelet", func(o *Options) { o.Kubelet = empty }, "is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := options(kubelet)
			tc.edit(&o)
			if _, err := Build(base, o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error saying %q, got %v", tc.want, err)
			}
		})
	}
}

// TestBuildArchMismatch: an ELF kubelet for another architecture than the
// base's is refused. The test binary itself stands in for an ELF kubelet.
func TestBuildArchMismatch(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Skip(err)
	}
	arch := ELFArch(b)
	if arch == "" {
		t.Skip("the test binary is not an ELF file here")
	}
	other := "arm64"
	if arch == other {
		other = "amd64"
	}
	base, err := StandInBase(other)
	if err != nil {
		t.Fatal(err)
	}
	o := options(exe)
	_, err = Build(base, o)
	if err == nil || !strings.Contains(err.Error(), "built for "+arch) || !strings.Contains(err.Error(), "linux/"+other) {
		t.Errorf("want an error naming %s and linux/%s, got %v", arch, other, err)
	}
	// A static binary of the same architecture on a base of its own
	// architecture is fine (the test binary may be dynamically linked, and
	// the stand-in base has no glibc: checkRuns would refuse it).
	if base, err = StandInBase(arch); err != nil {
		t.Fatal(err)
	}
	static := filepath.Join(runtime.GOROOT(), "bin", "gofmt")
	if _, err := os.Stat(static); err != nil {
		t.Skip(err)
	}
	if _, err := Build(base, options(static)); err != nil {
		t.Errorf("matching architecture: %v", err)
	}
}

// TestLoadBaseRemote runs the --base-ref path against a registry served in
// the test process (go-containerregistry's, on 127.0.0.1): a multi-platform
// index, from which the wanted architecture is picked.
func TestLoadBaseRemote(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ref := host + "/kindest/node:v1.37.1"

	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := StandInBase(arch)
		if err != nil {
			t.Fatal(err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}},
		})
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(r, idx); err != nil {
		t.Fatalf("pushing the stand-in index: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base, err := LoadBaseRemote(ctx, ref, "arm64")
	if err != nil {
		t.Fatalf("LoadBaseRemote: %v", err)
	}
	_, kubelet := fixture(t, "arm64")
	img, err := Build(base, options(kubelet))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "node.tar")
	if err := Write(out, DefaultName(upstream), img); err != nil {
		t.Fatal(err)
	}
	got, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := got.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.Architecture != "arm64" || cf.Config.StopSignal != StandInStopSignal {
		t.Errorf("want the arm64 stand-in's config, got %s, stop signal %q", cf.Architecture, cf.Config.StopSignal)
	}
	fs, _ := entries(t, mutate.Extract(got))
	checkKubelet(t, "flattened image", fs["usr/bin/kubelet"])

	// A reference that is not there fails with its name.
	if _, err := LoadBaseRemote(ctx, host+"/kindest/node:v0.0.0", "amd64"); err == nil || !strings.Contains(err.Error(), "kindest/node:v0.0.0") {
		t.Errorf("missing reference: want an error naming it, got %v", err)
	}
}

// TestWriteRejectsBadName: the name must be REPO:TAG.
func TestWriteRejectsBadName(t *testing.T) {
	img, err := StandInBase(runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.tar")
	if err := Write(out, "sidecar-kubelet/node", img); err == nil {
		t.Error("a name without a tag was accepted")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed Write left %s behind", out)
	}
	if got, want := DefaultName("1.37.1"), "sidecar-kubelet/node:v1.37.1"; got != want || DefaultName("v1.37.1") != want {
		t.Errorf("DefaultName: got %q, want %q", got, want)
	}
}

// TestBuildPreRelease: a series pinned to an upstream pre-release gets a
// node image too, labelled and tagged with the pre-release (a valid tag).
func TestBuildPreRelease(t *testing.T) {
	baseTar, kubelet := fixture(t, runtime.GOARCH)
	base, err := LoadBaseTarball(baseTar, "")
	if err != nil {
		t.Fatal(err)
	}
	o := options(kubelet)
	o.UpstreamVersion = "v1.37.0-rc.1"
	img, err := Build(base, o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Labels[LabelUpstreamVersion]; got != "v1.37.0-rc.1" {
		t.Errorf("label %s = %q, want v1.37.0-rc.1", LabelUpstreamVersion, got)
	}
	name := DefaultName("1.37.0-rc.1")
	if name != "sidecar-kubelet/node:v1.37.0-rc.1" {
		t.Errorf("DefaultName = %q", name)
	}
	if err := Write(filepath.Join(t.TempDir(), "node.tar"), name, img); err != nil {
		t.Errorf("Write %s: %v", name, err)
	}
}
