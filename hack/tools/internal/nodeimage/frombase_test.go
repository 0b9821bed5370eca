package nodeimage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestFromBaseTarCache builds from a base tarball twice, then after a
// change of each input: the stamp beside the output says when the image is
// up to date, and the output is only written when it is not.
func TestFromBaseTarCache(t *testing.T) {
	dir := t.TempDir()
	// The base: the stand-in, labelled as a node image built from sources.
	standIn, err := StandInBase("amd64")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := standIn.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	config := *cfg.Config.DeepCopy()
	config.Labels[LabelBuild] = "the sources build's key"
	base, err := mutate.Config(standIn, config)
	if err != nil {
		t.Fatal(err)
	}
	baseTar := filepath.Join(dir, "base.tar")
	if err := Write(baseTar, baseTag, base); err != nil {
		t.Fatal(err)
	}
	// A kubelet that reports the fork's version, as the real one does.
	kubelet := filepath.Join(dir, "kubelet")
	script := "#!/bin/sh\necho 'Kubernetes v1.37.1-sidecar-kubelet+0123456789ab'\n"
	if err := os.WriteFile(kubelet, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := FromBase{
		Project: Project{Root: dir, KindDir: filepath.Join(dir, "kind"), Release: "1.37.1", SeriesHash: seriesHash},
		BaseTar: baseTar, Kubelet: kubelet,
	}
	out := b.Out()
	// build runs b and says whether it wrote the output.
	build := func(b FromBase) bool {
		t.Helper()
		before, _ := os.Stat(out)
		time.Sleep(10 * time.Millisecond) // a rewrite gets another modification time
		if err := b.Build(context.Background()); err != nil {
			t.Fatalf("Build: %v", err)
		}
		after, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return before == nil || !after.ModTime().Equal(before.ModTime())
	}
	renamed := b
	renamed.Name = "sidecar-kubelet/node:other"
	var got []bool
	got = append(got, build(b), build(b), build(renamed), build(renamed))
	if err := os.WriteFile(kubelet, []byte(strings.Replace(script, "echo", "echo  ", 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	got = append(got, build(renamed))
	if err := os.Remove(out + ".fingerprint"); err != nil {
		t.Fatal(err)
	}
	got = append(got, build(renamed))
	want := []bool{true, false, true, false, true, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written: first, again, renamed, again, new kubelet, stamp deleted (-want +got):\n%s", diff)
	}
	img, err := LoadBaseTarball(out, "")
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if v := cf.Config.Labels[LabelImageVersion]; v != "v1.37.1-sidecar-kubelet+0123456789ab" {
		t.Errorf("%s = %q, want the kubelet's version", LabelImageVersion, v)
	}
	if v, ok := cf.Config.Labels[LabelBuild]; ok {
		t.Errorf("%s = %q: a base's build label is kept", LabelBuild, v)
	}
}

func TestFromBaseRefusesAnotherKubelet(t *testing.T) {
	baseTar, _ := fixture(t, "amd64")
	dir := t.TempDir()
	kubelet := filepath.Join(dir, "kubelet")
	if err := os.WriteFile(kubelet, []byte("#!/bin/sh\necho 'Kubernetes v1.37.1'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := FromBase{
		Project: Project{Root: dir, KindDir: filepath.Join(dir, "kind"), Release: "1.37.1", SeriesHash: seriesHash},
		BaseTar: baseTar, Kubelet: kubelet,
	}
	err := b.Build(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not sidecar-kubelet's kubelet") {
		t.Errorf("Build with upstream's kubelet: %v, want a refusal", err)
	}
}
