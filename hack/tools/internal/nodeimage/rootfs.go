package nodeimage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/buildcache"
)

// DefaultDebianMirror is debootstrap's mirror unless DEBIAN_MIRROR says
// another.
const DefaultDebianMirror = "http://deb.debian.org/debian"

// Suite is the Debian release of every root file system: bookworm, not a
// newer one, since systemd 256 and later refuse to boot on a cgroup v1 host.
const Suite = "bookworm"

// RootfsCache makes tarballs of Debian minbase root file systems with
// packages, by debootstrap, and keeps them in Dir (_output/kind/cache) as
// NAME.tar, with the package list beside it in NAME.tar.packages: its
// stamp, which holds the list itself rather than a digest of it, as
// hack/lib/kind.sh's kind_rootfs_tar wrote it, so that either finds the
// other's tarball fresh. Another list makes the tarball again.
type RootfsCache struct {
	Dir    string
	Mirror string
}

// Tarball is the path of the root file system tarball NAME with packages
// (comma-separated), made the first time. With systemd among the packages
// it is trimmed for a container as kind trims its base image (TrimSystemd).
func (c RootfsCache) Tarball(ctx context.Context, name, packages string) (string, error) {
	tarball := filepath.Join(c.Dir, name+".tar")
	step := buildcache.Step{Stamp: buildcache.Stamp(tarball + ".packages"), Key: packages, Outputs: []string{tarball}}
	built, err := step.Run(func() error { return c.make(ctx, name, packages, tarball) })
	if err != nil {
		return "", fmt.Errorf("the root file system %s: %w", name, err)
	}
	if !built {
		Logf("up to date: %s (%s)", tarball, packages)
	}
	return tarball, nil
}

func (c RootfsCache) make(ctx context.Context, name, packages, tarball string) error {
	if os.Geteuid() != 0 {
		return errors.New("debootstrap needs root")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		Logf("installing debootstrap")
		if err := (Command{Name: "apt-get", Args: []string{"install", "-y", "--no-install-recommends", "debootstrap"},
			Env: []string{"DEBIAN_FRONTEND=noninteractive"}, Quiet: true}).Run(ctx); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	rootfs := filepath.Join(c.Dir, name+".rootfs.tmp")
	// debootstrap mounts /proc and /sys in the target while it installs; a
	// run that stopped half-way may have left them.
	if err := removeRootfs(rootfs); err != nil {
		return err
	}
	defer func() {
		if err := removeRootfs(rootfs); err != nil {
			Logf("%v", err)
		}
	}()
	mirror := c.Mirror
	if mirror == "" {
		mirror = DefaultDebianMirror
	}
	logPath := filepath.Join(c.Dir, name+".debootstrap.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	Logf("debootstrap %s (minbase + %s) into %s", Suite, packages, rootfs)
	start := time.Now()
	err = Command{Name: "debootstrap", Args: []string{"--variant=minbase", "--include=" + packages, Suite, rootfs, mirror},
		What: "debootstrapping " + name}.runLogged(ctx, logFile)
	if err != nil {
		b, _ := os.ReadFile(logPath)
		return fmt.Errorf("debootstrap failed (log: %s): %w%s", logPath, err, lastLines(string(b), 20))
	}
	Logf("debootstrap took %s", time.Since(start).Round(time.Second))
	if _, err := os.Stat(filepath.Join(rootfs, "usr/lib/systemd/systemd")); err == nil {
		if err := TrimSystemd(rootfs); err != nil {
			return fmt.Errorf("trimming systemd: %w", err)
		}
	}
	if err := removeGlobs(rootfs, aptLeftovers); err != nil {
		return err
	}
	if err := (Command{Name: "tar", Args: []string{"-C", rootfs, "--numeric-owner", "--xattrs", "-cf", tarball + ".tmp", "."}, Quiet: true}).Run(ctx); err != nil {
		return err
	}
	if err := os.Rename(tarball+".tmp", tarball); err != nil {
		return err
	}
	if fi, err := os.Stat(tarball); err == nil {
		Logf("cached %s (%d MB)", tarball, fi.Size()>>20)
	}
	return nil
}

// runLogged runs the command with both streams into log.
func (c Command) runLogged(ctx context.Context, log *os.File) error {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), c.Env...)
	defer progress(c.What)()
	return cmd.Run()
}

// systemdTrimmed is what kind's base image removes from a Debian systemd
// for a container, as globs under the root file system: no units wanted by
// default (the node's own units are enabled by its files layer), no udev,
// no initctl.
var systemdTrimmed = []string{
	"lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service",
	"lib/systemd/system/multi-user.target.wants/*",
	"etc/systemd/system/*.wants/*",
	"lib/systemd/system/local-fs.target.wants/*",
	"lib/systemd/system/sockets.target.wants/*udev*",
	"lib/systemd/system/sockets.target.wants/*initctl*",
	"lib/systemd/system/basic.target.wants/*",
}

// aptLeftovers are apt's downloads and lists, which a root file system
// tarball need not carry.
var aptLeftovers = []string{"var/cache/apt/archives/*.deb", "var/lib/apt/lists/*"}

// systemdLinks are the links TrimSystemd makes, link -> target: /sbin/init
// is systemd, and binfmt (which a container cannot set up) is masked.
var systemdLinks = [][2]string{
	{"sbin/init", "/usr/lib/systemd/systemd"},
	{"etc/systemd/system/systemd-binfmt.service", "/dev/null"},
}

// TrimSystemd trims the systemd of the root file system at rootfs for a
// container, as kind trims its base image: systemdTrimmed removed,
// journald not reading /dev/kmsg, systemdLinks made.
func TrimSystemd(rootfs string) error {
	if err := removeGlobs(rootfs, systemdTrimmed); err != nil {
		return err
	}
	j, err := os.OpenFile(filepath.Join(rootfs, "etc/systemd/journald.conf"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := j.WriteString("ReadKMsg=no\n"); err != nil {
		j.Close()
		return err
	}
	if err := j.Close(); err != nil {
		return err
	}
	for _, l := range systemdLinks {
		p := filepath.Join(rootfs, l[0])
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.Symlink(l[1], p); err != nil {
			return err
		}
	}
	return nil
}

// removeGlobs removes what each glob matches under root.
func removeGlobs(root string, globs []string) error {
	for _, g := range globs {
		matches, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeRootfs unmounts what debootstrap left mounted under dir and removes
// it.
func removeRootfs(dir string) error {
	if err := unmountUnder(dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	return nil
}

// unmountUnder unmounts every mount at or under dir, deepest first,
// lazily as a last resort (hack/lib.sh unmount_under).
func unmountUnder(dir string) error {
	for try := 0; try < 5; try++ {
		mounts, err := mountsUnder(dir)
		if err != nil {
			return err
		}
		if len(mounts) == 0 {
			return nil
		}
		Logf("unmounting %d mounts under %s", len(mounts), dir)
		for _, m := range mounts {
			if err := syscall.Unmount(m, 0); err != nil {
				_ = syscall.Unmount(m, syscall.MNT_DETACH)
			}
		}
	}
	if mounts, _ := mountsUnder(dir); len(mounts) > 0 {
		return fmt.Errorf("mounts are left under %s: %s", dir, strings.Join(mounts, " "))
	}
	return nil
}

// mountsUnder lists the mount points at or under dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir = filepath.Clean(dir)
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 {
			continue
		}
		m := unescapeMount(fields[1])
		if m == dir || strings.HasPrefix(m, dir+"/") {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, s.Err()
}

// unescapeMount undoes /proc/self/mounts' octal escapes (\040 for a blank).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
