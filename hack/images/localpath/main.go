// Command local-path-helper makes and removes the volume folders of the
// default storage in the project's kind node images built without a
// registry (hack/kind/node-image.sh build). The storage is rancher's
// local-path-provisioner, as kind's own node images ship it; its helper pod
// runs, in kind's images, the shell scripts "mkdir -m 0777 -p $VOL_DIR" and
// "rm -rf $VOL_DIR" from an image with sh, mkdir and rm. Here the
// provisioner's setupCommand and teardownCommand name this static program
// instead (hack/kind/node/files/kind/manifests/default-storage.yaml), which
// it runs as
//
//	local-path-helper -p PATH -s SIZE -m Filesystem|Block -a create|delete
//
// in a pod that mounts PATH's parent from the node.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "local-path-helper:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("local-path-helper", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("p", "", "the volume's folder, absolute (required)")
	fs.String("s", "", "the volume's size in bytes (not enforced, as by kind's scripts)")
	mode := fs.String("m", "Filesystem", "the volume mode: Filesystem (Block is refused)")
	action := fs.String("a", "", "create or delete (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	dir, err := volumeDir(*path)
	if err != nil {
		return err
	}
	switch *action {
	case "create":
		if *mode != "Filesystem" {
			return fmt.Errorf("volume mode %q: only Filesystem volumes are provisioned", *mode)
		}
		// 0777 whatever the umask, as mkdir -m 0777 does: the pods that use
		// the volume run as any user.
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
		return os.Chmod(dir, 0o777)
	case "delete":
		return os.RemoveAll(dir)
	default:
		return fmt.Errorf("action %q: want create or delete", *action)
	}
}

// volumeDir refuses what would make or remove the wrong folder: an empty
// or relative path, or the root.
func volumeDir(p string) (string, error) {
	if p == "" {
		return "", errors.New("no volume folder (-p)")
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("volume folder %q is not absolute", p)
	}
	dir := filepath.Clean(p)
	if dir == "/" {
		return "", errors.New("volume folder / refused")
	}
	return dir, nil
}
