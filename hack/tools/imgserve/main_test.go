package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestServesTarballsUnderTheirRepositories(t *testing.T) {
	dir := t.TempDir()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	tag := name.MustParseReference("registry.k8s.io/e2e-test-images/agnhost:2.66.1").(name.Tag)
	tar := filepath.Join(dir, "agnhost.tar")
	if err := tarball.WriteToFile(tar, tag, img); err != nil {
		t.Fatal(err)
	}
	addrFile := filepath.Join(dir, "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, "127.0.0.1:0", addrFile, []string{tar}) }()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(addrFile); err == nil {
			addr = strings.TrimSpace(string(b))
			break
		}
	}
	if addr == "" {
		t.Fatal("no address written")
	}
	ref, err := name.NewTag(addr+"/e2e-test-images/agnhost:2.66.1", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Image(ref)
	if err != nil {
		t.Fatalf("pulling %s: %v", ref, err)
	}
	want, _ := img.Digest()
	if d, _ := got.Digest(); d != want {
		t.Errorf("digest %s, want %s", d, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	if err := run(context.Background(), "0.0.0.0:0", "", nil); err == nil {
		t.Error("want an error for a non-loopback address")
	}
}
