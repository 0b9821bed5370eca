// Command imgserve serves image tarballs (as imgpack writes them) from a
// registry of its own, in memory, on a loopback address: a stand-in for a
// real registry where none can be reached, so that pods whose
// imagePullPolicy is Always can pull. Each image is served under the
// repository and tag of its name, without the registry host: set up as a
// mirror of that host (containerd's hosts.toml), it answers for it.
//
//	imgserve -addr 127.0.0.1:0 -addr-file run/registry.addr agnhost.tar busybox.tar
//
// It writes the address it listens on to -addr-file once every image is in,
// and serves until SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	addrFile := flag.String("addr-file", "", "write the address listened on here once ready")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: imgserve [-addr HOST:PORT] [-addr-file FILE] IMAGE.tar...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *addr, *addrFile, flag.Args()); err != nil {
		log.Fatal("imgserve: ", err)
	}
}

func run(ctx context.Context, addr, addrFile string, tars []string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s: listen on a loopback address only", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	served := l.Addr().String()
	if err := push(ctx, served, tars); err != nil {
		srv.Close()
		return err
	}
	if addrFile != "" {
		if err := os.WriteFile(addrFile+".tmp", []byte(served+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(addrFile+".tmp", addrFile); err != nil {
			return err
		}
	}
	log.Printf("imgserve: serving %d image tarballs on %s", len(tars), served)
	select {
	case <-ctx.Done():
		return srv.Close()
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// push puts every image of the tarballs into the registry at addr, under its
// tags' repositories without their registry.
func push(ctx context.Context, addr string, tars []string) error {
	for _, tar := range tars {
		m, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(tar) })
		if err != nil {
			return fmt.Errorf("%s: %w", tar, err)
		}
		for _, desc := range m {
			for _, t := range desc.RepoTags {
				tag, err := name.NewTag(t)
				if err != nil {
					return fmt.Errorf("%s: %w", tar, err)
				}
				img, err := tarball.ImageFromPath(tar, &tag)
				if err != nil {
					return fmt.Errorf("%s: %w", tar, err)
				}
				dst, err := name.NewTag(addr+"/"+tag.RepositoryStr()+":"+tag.TagStr(), name.Insecure)
				if err != nil {
					return err
				}
				if err := remote.Write(dst, img, remote.WithContext(ctx)); err != nil {
					return fmt.Errorf("pushing %s: %w", t, err)
				}
				log.Printf("imgserve: %s as %s", t, dst)
			}
		}
	}
	return nil
}
