package nodeimage

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/buildcache"
)

// Parts builds what a kind node image built from sources holds besides its
// Debian root, for one release, from the Go module proxy and Debian's
// packages only, into Dir (_output/kind/vX.Y.Z):
//
//	bin/     static binaries (CGO_ENABLED=0), so that they run on any node
//	         image whatever the build machine's glibc: the kubelet (patched),
//	         kubeadm and kubectl from the work tree, stamped as make kubelet
//	         stamps; containerd, containerd-shim-runc-v2 and ctr
//	images/  image tarballs with the names kubeadm of this release asks for
//	         (list.txt): the control plane and kube-proxy (the work tree;
//	         kube-proxy's image has a Debian root with iptables, conntrack and
//	         ipset, which it runs), etcd and CoreDNS at kubeadm's versions,
//	         the project's pause; and the default storage's (storage.txt):
//	         rancher's local-path-provisioner and the project's helper
//
// runc and the CNI plugins come from Debian with the root file system. Each
// group is a build step with its own stamp, Dir/.GROUP.fingerprint.
type Parts struct {
	// Dir is where the parts go (bin/, images/, the stamps).
	Dir string
	// Root is the repository (hack/images, kubelet/, go.mod).
	Root string
	// BuildDir is the build module: it requires k8s.io/kubernetes, replaced
	// by the patched work tree (hack/lib.sh BUILD_DIR).
	BuildDir string
	// Release is the upstream release, X.Y.Z or X.Y.Z-pre, without the v.
	Release string
	// Version is what the Kubernetes binaries report (hack/lib.sh
	// version_stamp's VERSION), and Ldflags the -X flags that stamp it.
	Version string
	Ldflags string
	// TreeCommit and TreeEdits name the work tree's state: its HEAD and a
	// digest of its uncommitted edits (status and content).
	TreeCommit string
	TreeEdits  string
	// Containerd is the containerd release and its build tags.
	ContainerdVersion string
	ContainerdTags    string
	// LocalPathProvisionerVersion is rancher's release to build (the newest
	// of its minor the module proxy serves when it does not serve this one).
	LocalPathProvisionerVersion string
	// Imgpack is the hack/tools/imgpack binary that packs the images.
	Imgpack string
	// Rootfs makes kube-proxy's Debian root.
	Rootfs RootfsCache
}

// The Kubernetes commands of the parts: the kubelet apart, so that the
// prototyping loop (make kind-kubelet) rebuilds nothing else.
var (
	kubeletCommands    = []string{"kubelet"}
	kubernetesCommands = []string{"kubeadm", "kubectl", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy"}
	controlPlane       = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}
)

// KubeProxyPackages is what kube-proxy's Debian root holds: it runs
// iptables, conntrack and ipset.
const KubeProxyPackages = "iptables,conntrack,ipset,kmod"

func (p *Parts) bin(name string) string    { return filepath.Join(p.Dir, "bin", name) }
func (p *Parts) images(name string) string { return filepath.Join(p.Dir, "images", name) }
func (p *Parts) stamp(group string) buildcache.Stamp {
	return buildcache.Stamp(filepath.Join(p.Dir, "."+group+".fingerprint"))
}

// partsRun is one run of the parts' build: its scratch folder and what the
// steps learn on the way.
type partsRun struct {
	*Parts
	ctx       context.Context
	tmp       string
	goEnv     string
	k8sKey    string // the key of the kubernetes group
	imgpack   string // the imgpack binary's sha256 line
	wanted    []string
	cpBuiltIn string // a folder holding freshly built control-plane binaries
}

// Kubelet builds the kubelet alone (make kind-kubelet).
func (p *Parts) Kubelet(ctx context.Context) error {
	r, err := p.start(ctx)
	if err != nil {
		return err
	}
	defer os.RemoveAll(r.tmp)
	return r.kubernetes("kubelet", kubeletCommands, []string{p.bin("kubelet")}, false)
}

// Build builds every part, each group unless it is fresh.
func (p *Parts) Build(ctx context.Context) error {
	r, err := p.start(ctx)
	if err != nil {
		return err
	}
	defer os.RemoveAll(r.tmp)
	steps := []func() error{
		func() error { return r.kubernetes("kubelet", kubeletCommands, []string{p.bin("kubelet")}, false) },
		func() error {
			return r.kubernetes("kubernetes", kubernetesCommands, []string{p.bin("kubeadm"), p.bin("kubectl")}, false)
		},
		r.containerd,
		r.listImages,
		r.controlPlaneImages,
		r.kubeProxyImage,
		r.etcdImage,
		r.corednsImage,
		r.pauseImage,
		r.storageImages,
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	// The control plane's and kube-proxy's binaries live in their images
	// only (a kubernetes group built again while its images were fresh
	// leaves them here).
	for _, c := range append(controlPlane, "kube-proxy") {
		if err := os.Remove(p.bin(c)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.WriteFile(p.images("list.txt"), []byte(strings.Join(r.wanted, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	bins, _ := filepath.Glob(p.bin("*"))
	tars, _ := filepath.Glob(p.images("*.tar"))
	Logf("node parts for v%s in %s: %s; images: %s", p.Release, p.Dir, baseNames(bins), baseNames(tars))
	return nil
}

func baseNames(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return strings.Join(out, " ")
}

func (p *Parts) start(ctx context.Context) (*partsRun, error) {
	for _, d := range []string{"bin", "images"} {
		if err := os.MkdirAll(filepath.Join(p.Dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp(p.Dir, ".build.")
	if err != nil {
		return nil, err
	}
	r := &partsRun{Parts: p, ctx: ctx, tmp: tmp}
	if r.goEnv, err = goEnv(ctx); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return r, nil
}

// goEnv is what of the Go toolchain a static build depends on.
func goEnv(ctx context.Context) (string, error) {
	out, err := Command{Name: "go", Args: []string{"env", "GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOEXPERIMENT"}, Quiet: true}.Output(ctx)
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	return out + "\n", nil
}

// goStatic is the environment of every build of the parts: static binaries.
var goStatic = []string{"CGO_ENABLED=0"}

// kubernetes builds the static binaries cmds of the work tree into bin/,
// unless group was built from the same tree, series and Go.
func (r *partsRun) kubernetes(group string, cmds, outputs []string, force bool) error {
	var d buildcache.Description
	d.Line("k8s", r.Release, strings.Join(cmds, " "), "static")
	d.Line("tree", r.TreeCommit)
	d.Line("edits", r.TreeEdits)
	d.Line("ldflags", r.Ldflags)
	d.Text(r.goEnv)
	if err := hashForkModule(&d, r.Root); err != nil {
		return err
	}
	step := buildcache.Step{Stamp: r.stamp(group), Key: d.Key(), Outputs: outputs}
	if group == "kubernetes" {
		r.k8sKey = step.Key
	}
	if force {
		if err := step.Stamp.Forget(); err != nil {
			return err
		}
	}
	built, err := step.Run(func() error { return r.buildKubernetes(cmds, filepath.Join(r.Dir, "bin")) })
	if err != nil {
		return fmt.Errorf("building %s: %w", strings.Join(cmds, " "), err)
	}
	if !built {
		Logf("%s up to date", group)
	}
	return nil
}

// buildKubernetes builds cmds of the work tree, checks each reports the
// version and is static, and moves them into dest.
func (r *partsRun) buildKubernetes(cmds []string, dest string) error {
	start := time.Now()
	out, err := os.MkdirTemp(r.tmp, "k8s.")
	if err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-o", out + "/", "-ldflags", r.Ldflags}
	for _, c := range cmds {
		args = append(args, "k8s.io/kubernetes/cmd/"+c)
	}
	if err := (Command{Name: "go", Args: args, Dir: r.BuildDir, Env: append([]string{"GOFLAGS=-mod=mod"}, goStatic...),
		What: fmt.Sprintf("building %s %s (static)", strings.Join(cmds, " "), r.Version)}).Run(r.ctx); err != nil {
		return err
	}
	for _, c := range cmds {
		bin := filepath.Join(out, c)
		if err := checkVersion(r.ctx, bin, c, r.Version); err != nil {
			return err
		}
		if err := checkStatic(bin); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	for _, c := range cmds {
		if err := os.Rename(filepath.Join(out, c), filepath.Join(dest, c)); err != nil {
			return err
		}
	}
	Logf("built %s in %s", strings.Join(cmds, " "), time.Since(start).Round(time.Second))
	return nil
}

// hashForkModule adds the inputs of this repository's Go module that a
// kubelet build links (hack/lib.sh cache_hash_fork_module): kubelet/'s .go
// files but tests, go.mod and go.sum.
func hashForkModule(d *buildcache.Description, root string) error {
	if err := d.Files(root, []string{"kubelet"}, func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	}); err != nil {
		return err
	}
	return d.Files(root, []string{"go.mod", "go.sum"}, nil)
}

// checkVersion fails unless the Kubernetes binary reports version (a
// mistyped -X is silently ignored by the linker).
func checkVersion(ctx context.Context, bin, cmd, version string) error {
	var args []string
	switch cmd {
	case "kubectl":
		args = []string{"version", "--client"}
	case "kubeadm":
		args = []string{"version", "-o", "short"}
	default:
		args = []string{"--version"}
	}
	got, _ := Command{Name: bin, Args: args, Quiet: true}.Output(ctx)
	got, _, _ = strings.Cut(got, "\n")
	if !strings.HasSuffix(got, version) {
		return fmt.Errorf("the built %s reports %q, expected %s", cmd, got, version)
	}
	return nil
}

// checkStatic fails unless the file is a static executable (no ELF
// interpreter), which runs on any node whatever its glibc.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is not statically linked", path)
		}
	}
	return nil
}

// containerd builds containerd, its runc shim and ctr, static.
func (r *partsRun) containerd() error {
	const mod = "github.com/containerd/containerd/v2"
	cmds := []string{"containerd", "containerd-shim-runc-v2", "ctr"}
	var d buildcache.Description
	d.Line(mod + "@" + r.ContainerdVersion).Line(strings.Join(cmds, " ")).Line(r.ContainerdTags).Line("static").Text(r.goEnv)
	var outputs []string
	for _, c := range cmds {
		outputs = append(outputs, r.bin(c))
	}
	built, err := buildcache.Step{Stamp: r.stamp("containerd"), Key: d.Key(), Outputs: outputs}.Run(func() error {
		start := time.Now()
		gobin, err := os.MkdirTemp(r.tmp, "containerd.")
		if err != nil {
			return err
		}
		args := []string{"install", "-trimpath", "-tags", r.ContainerdTags, "-ldflags", "-X " + mod + "/version.Version=" + r.ContainerdVersion}
		for _, c := range cmds {
			args = append(args, mod+"/cmd/"+c+"@"+r.ContainerdVersion)
		}
		if err := (Command{Name: "go", Args: args, Dir: gobin, Env: append([]string{"GOBIN=" + gobin}, goStatic...),
			What: "building containerd " + r.ContainerdVersion + " (static)"}).Run(r.ctx); err != nil {
			return err
		}
		for _, c := range cmds {
			if err := checkStatic(filepath.Join(gobin, c)); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(gobin, c), r.bin(c)); err != nil {
				return err
			}
		}
		Logf("built containerd %s (static) in %s", r.ContainerdVersion, time.Since(start).Round(time.Second))
		return nil
	})
	if err != nil {
		return fmt.Errorf("containerd: %w", err)
	}
	if !built {
		Logf("containerd up to date")
	}
	return nil
}

// listImages asks kubeadm which images this release's control plane runs.
func (r *partsRun) listImages() error {
	out, err := Command{Name: r.bin("kubeadm"), Args: []string{"config", "images", "list", "--kubernetes-version", "v" + r.Release}, Quiet: true}.Output(r.ctx)
	if err != nil {
		return err
	}
	r.wanted = strings.Fields(out)
	if len(r.wanted) < 7 {
		return fmt.Errorf("kubeadm config images list gave %d images: %s", len(r.wanted), out)
	}
	sum, err := buildcache.FileSHA256(r.Imgpack)
	if err != nil {
		return err
	}
	r.imgpack = sum + "  -"
	return nil
}

// pack writes images/NAME.tar: imgpack's image of args, tagged tag.
func (r *partsRun) pack(name, tag string, args ...string) error {
	tmp := filepath.Join(r.tmp, name+".tar")
	if err := (Command{Name: r.Imgpack, Args: append([]string{"-o", tmp, "-tag", tag}, args...), Quiet: true}).Run(r.ctx); err != nil {
		return err
	}
	return os.Rename(tmp, r.images(name+".tar"))
}

// imageStep runs the step of an image group and says when it was fresh.
func (r *partsRun) imageStep(group string, d *buildcache.Description, outputs []string, build func() error) error {
	start := time.Now()
	built, err := buildcache.Step{Stamp: r.stamp(group), Key: d.Key(), Outputs: outputs}.Run(build)
	if err != nil {
		return fmt.Errorf("%s: %w", group, err)
	}
	if built {
		Logf("built %s in %s", group, time.Since(start).Round(time.Second))
	} else {
		Logf("%s up to date", group)
	}
	return nil
}

// k8sBinary is the control-plane binary cmd of the kubernetes group: it is
// in bin/ until its image holds it; when an image must be packed again
// after that, the kubernetes group is built again.
func (r *partsRun) k8sBinary(cmd string) (string, error) {
	if _, err := os.Stat(r.bin(cmd)); err == nil {
		return r.bin(cmd), nil
	}
	Logf("%s is only in its image: building the kubernetes group again", cmd)
	if err := r.kubernetes("kubernetes", kubernetesCommands, nil, true); err != nil {
		return "", err
	}
	return r.bin(cmd), nil
}

func (r *partsRun) controlPlaneImages() error {
	var d buildcache.Description
	d.Line(r.k8sKey).Line(r.imgpack).Text(strings.Join(r.wanted, "\n") + "\n")
	var outputs []string
	for _, c := range controlPlane {
		outputs = append(outputs, r.images(c+".tar"))
	}
	return r.imageStep("control-plane-images", &d, outputs, func() error {
		for _, c := range controlPlane {
			bin, err := r.k8sBinary(c)
			if err != nil {
				return err
			}
			tag, err := ImageOf(r.wanted, c)
			if err != nil {
				return err
			}
			if err := r.pack(c, tag, "-entrypoint", "/usr/local/bin/"+c, bin+":/usr/local/bin/"+c); err != nil {
				return err
			}
			if err := os.Remove(bin); err != nil { // only in the image
				return err
			}
		}
		return nil
	})
}

func (r *partsRun) kubeProxyImage() error {
	root, err := r.Rootfs.Tarball(r.ctx, "bookworm-kube-proxy", KubeProxyPackages)
	if err != nil {
		return err
	}
	tag, err := ImageOf(r.wanted, "kube-proxy")
	if err != nil {
		return err
	}
	var d buildcache.Description
	d.Line(r.k8sKey).Line(r.imgpack)
	if err := d.FileSum(root); err != nil {
		return err
	}
	d.Line(tag)
	return r.imageStep("kube-proxy-image", &d, []string{r.images("kube-proxy.tar")}, func() error {
		bin, err := r.k8sBinary("kube-proxy")
		if err != nil {
			return err
		}
		if err := r.pack("kube-proxy", tag, "-layer", root, "-entrypoint", "/usr/local/bin/kube-proxy", bin+":/usr/local/bin/kube-proxy"); err != nil {
			return err
		}
		return os.Remove(bin)
	})
}

// served is version if the module proxy serves mod at it, else the newest
// served release of the same minor (said in the log; etcd's and CoreDNS's
// images keep kubeadm's names, since kubeadm asks for those).
func (r *partsRun) served(mod, version string) (string, error) {
	env := []string{"GOFLAGS=-mod=mod"}
	if err := (Command{Name: "go", Args: []string{"list", "-m", mod + "@" + version}, Dir: r.tmp, Env: env, Quiet: true}).Run(r.ctx); err == nil {
		return version, nil
	}
	out, err := Command{Name: "go", Args: []string{"list", "-m", "-versions", mod}, Dir: r.tmp, Env: env, Quiet: true}.Output(r.ctx)
	if err != nil {
		return "", fmt.Errorf("listing the versions of %s: %w", mod, err)
	}
	v := NewestPatch(strings.Fields(out), Minor(version))
	if v == "" {
		return "", fmt.Errorf("the module proxy serves neither %s@%s nor another %s release", mod, version, Minor(version))
	}
	Logf("%s@%s is not served; building %s, the newest %s release served", mod, version, v, Minor(version))
	return v, nil
}

// moduleBuild builds pkg of the module modver into out, in a throwaway
// module (go install mod@ver refuses modules with replace directives);
// mainGo, if set, is the main package's source, for modules whose command
// is a library call.
func (r *partsRun) moduleBuild(what, modver, pkg, out, mainGo string) error {
	d, err := os.MkdirTemp(r.tmp, "mod.")
	if err != nil {
		return err
	}
	steps := []Command{{Name: "go", Args: []string{"mod", "init", "sidecar-kubelet.local/build"}}}
	if mainGo != "" {
		if err := os.WriteFile(filepath.Join(d, "main.go"), []byte(mainGo), 0o644); err != nil {
			return err
		}
	}
	steps = append(steps, Command{Name: "go", Args: []string{"get", modver}})
	// The main.go's imports need tidy; a dependency's own main package
	// must not be tidied away.
	if mainGo != "" {
		steps = append(steps, Command{Name: "go", Args: []string{"mod", "tidy"}})
	}
	steps = append(steps, Command{Name: "go", Args: []string{"build", "-trimpath", "-o", out, pkg}, What: what})
	for _, c := range steps {
		c.Dir, c.Env, c.Quiet = d, goStatic, true
		if err := c.Run(r.ctx); err != nil {
			return err
		}
	}
	return checkStatic(out)
}

// etcdMain is etcd's command: upstream's binary's main is etcdmain.Main.
const etcdMain = `package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// etcd, as upstream's etcd binary: its main is etcdmain.Main.
func main() { etcdmain.Main(os.Args) }
`

// moduleImage is an image of one static command built from a Go module at
// a release the module proxy serves (etcd, CoreDNS, local-path-provisioner).
type moduleImage struct {
	// name names the image's tar under images/, its build step and the
	// command.
	name string
	// image is the image's name and tag.
	image string
	// mod, at version, is the module; pkg the command's package in it.
	mod, version, pkg string
	// mainGo, if set, is the command's main package, for modules whose
	// command is a library call.
	mainGo string
	// entrypoint is where the command lives in the image.
	entrypoint string
}

// moduleImage builds m's command and packs it, unless the step's cache has
// them for the same module release, image, Go and imgpack.
func (r *partsRun) moduleImage(m moduleImage) error {
	var d buildcache.Description
	d.Line(m.name, m.version, m.image).Text(r.goEnv).Line(r.imgpack)
	return r.imageStep(m.name+"-image", &d, []string{r.images(m.name + ".tar")}, func() error {
		bin := filepath.Join(r.tmp, m.name)
		if err := r.moduleBuild("building "+m.name+" "+m.version+" (static)", m.mod+"@"+m.version, m.pkg, bin, m.mainGo); err != nil {
			return err
		}
		return r.pack(m.name, m.image, "-entrypoint", m.entrypoint, bin+":"+m.entrypoint)
	})
}

func (r *partsRun) etcdImage() error {
	const mod = "go.etcd.io/etcd/server/v3"
	image, err := ImageOf(r.wanted, "etcd")
	if err != nil {
		return err
	}
	version, err := r.served(mod, EtcdVersion(ImageTag(image)))
	if err != nil {
		return err
	}
	return r.moduleImage(moduleImage{name: "etcd", image: image, mod: mod, version: version, pkg: ".", mainGo: etcdMain, entrypoint: "/usr/local/bin/etcd"})
}

func (r *partsRun) corednsImage() error {
	const mod = "github.com/coredns/coredns"
	image, err := ImageOf(r.wanted, "coredns")
	if err != nil {
		return err
	}
	version, err := r.served(mod, ImageTag(image))
	if err != nil {
		return err
	}
	return r.moduleImage(moduleImage{name: "coredns", image: image, mod: mod, version: version, pkg: mod, entrypoint: "/coredns"})
}

func (r *partsRun) pauseImage() error {
	image, err := ImageOf(r.wanted, "pause")
	if err != nil {
		return err
	}
	var d buildcache.Description
	d.Line(image).Line(r.imgpack)
	return r.imageStep("pause-image", &d, []string{r.images("pause.tar")}, func() error {
		bin := filepath.Join(r.tmp, "pause")
		if err := r.goBuildOwn("./hack/images/pause", bin); err != nil {
			return err
		}
		return r.pack("pause", image, "-entrypoint", "/pause", bin+":/pause")
	})
}

// goBuildOwn builds a static command of this repository's module.
func (r *partsRun) goBuildOwn(pkg, out string) error {
	if err := (Command{Name: "go", Args: []string{"build", "-trimpath", "-o", out, pkg}, Dir: r.Root, Env: goStatic, Quiet: true}).Run(r.ctx); err != nil {
		return err
	}
	return checkStatic(out)
}

// storageImages builds the default storage, as kind's images have it:
// rancher's local-path-provisioner (kind v0.33.0 ships v0.0.34; the newest
// the module proxy serves is built) and its helper pod's image, the static
// hack/images/localpath, and names both in images/storage.txt, for the
// manifest (NodeFiles).
func (r *partsRun) storageImages() error {
	const mod = "github.com/rancher/local-path-provisioner"
	version, err := r.served(mod, r.LocalPathProvisionerVersion)
	if err != nil {
		return err
	}
	lppImage := "sidecar-kubelet.local/local-path-provisioner:" + version
	if err := r.moduleImage(moduleImage{name: "local-path-provisioner", image: lppImage, mod: mod, version: version, pkg: mod,
		entrypoint: "/usr/local/bin/local-path-provisioner"}); err != nil {
		return err
	}

	helper := filepath.Join(r.tmp, "local-path-helper")
	if err := r.goBuildOwn("./hack/images/localpath", helper); err != nil {
		return err
	}
	sum, err := buildcache.FileSHA256(helper)
	if err != nil {
		return err
	}
	helperImage := "sidecar-kubelet.local/local-path-helper:" + sum[:12]
	var hd buildcache.Description
	hd.Line(helperImage).Line(r.imgpack)
	if err := r.imageStep("local-path-helper-image", &hd, []string{r.images("local-path-helper.tar")}, func() error {
		return r.pack("local-path-helper", helperImage, "-entrypoint", "/local-path-helper", helper+":/local-path-helper")
	}); err != nil {
		return err
	}
	return os.WriteFile(r.images("storage.txt"), []byte(StorageList{Provisioner: lppImage, Helper: helperImage}.String()), 0o644)
}

// StorageList is images/storage.txt: the default storage's images, one
// "NAME IMAGE" line each.
type StorageList struct{ Provisioner, Helper string }

func (s StorageList) String() string {
	return "local-path-provisioner " + s.Provisioner + "\nlocal-path-helper " + s.Helper + "\n"
}

// ParseStorageList reads images/storage.txt.
func ParseStorageList(text string) (StorageList, error) {
	var s StorageList
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "local-path-provisioner":
			s.Provisioner = f[1]
		case "local-path-helper":
			s.Helper = f[1]
		}
	}
	if s.Provisioner == "" || s.Helper == "" {
		return s, errors.New("storage.txt names no local-path-provisioner or no local-path-helper image")
	}
	return s, nil
}
