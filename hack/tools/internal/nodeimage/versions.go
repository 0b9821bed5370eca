package nodeimage

import (
	"fmt"
	"strconv"
	"strings"
)

// ImageOf picks from kubeadm's image list (`kubeadm config images list`)
// the image of component name: the first whose repository ends in
// "/name" ("registry.k8s.io/etcd:3.6.5-0" for "etcd").
func ImageOf(images []string, name string) (string, error) {
	for _, img := range images {
		if strings.Contains(img, "/"+name+":") {
			return img, nil
		}
	}
	return "", fmt.Errorf("kubeadm lists no %s image (it lists %s)", name, strings.Join(images, " "))
}

// ImageTag is the tag of an image reference (what follows the last ':').
func ImageTag(image string) string {
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[i+1:]
	}
	return ""
}

// EtcdVersion is the etcd release of kubeadm's etcd image tag: "3.6.5-0"
// (the release and the image's own revision) is v3.6.5.
func EtcdVersion(tag string) string {
	v, _, _ := strings.Cut(tag, "-")
	return "v" + strings.TrimPrefix(v, "v")
}

// releaseParts splits a plain release vX.Y.Z into its numbers; false for a
// pre-release or anything else.
func releaseParts(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || p == "" || (len(p) > 1 && p[0] == '0') {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// Minor is the minor of a release: "v3.6" of "v3.6.5".
func Minor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// NewestPatch is the newest plain release (no pre-release) of minor
// ("v3.6") among versions (what `go list -m -versions` lists), or "" when
// there is none: the module proxy may not serve the very release kubeadm
// names, and then the newest patch of its minor is built instead.
func NewestPatch(versions []string, minor string) string {
	best, bestParts := "", [3]int{}
	for _, v := range versions {
		p, ok := releaseParts(v)
		if !ok || Minor(v) != minor {
			continue
		}
		if best == "" || p[2] > bestParts[2] {
			best, bestParts = v, p
		}
	}
	return best
}
