package kindconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	kinddefaults "sigs.k8s.io/kind/pkg/apis/config/defaults"

	"github.com/sidecar-kubelet/sidecar-kubelet/hack/tools/internal/release"
)

// publishedImage is a line of kind-config/published-node-images.
type publishedImage struct {
	Release   string // vX.Y.Z
	Reference string // kindest/node:vX.Y.Z@sha256:...
}

var releasePattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// parsePublished reads the file as hack/kind/cluster.sh does (awk: the
// first field is the release, the second the reference; # starts a
// comment) and refuses what the script would misread: a line of another
// shape, a reference without a digest, a tag that is not the release, a
// release listed twice.
func parsePublished(raw []byte) ([]publishedImage, error) {
	var images []publishedImage
	seen := map[string]bool{}
	s := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want a release and a reference, got %q", n, line)
		}
		version, ref := f[0], f[1]
		if !releasePattern.MatchString(version) {
			return nil, fmt.Errorf("line %d: %q is not a release vX.Y.Z", n, version)
		}
		if seen[version] {
			return nil, fmt.Errorf("line %d: %s is listed twice", n, version)
		}
		seen[version] = true
		d, err := name.NewDigest(ref)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not pinned by digest: %v", n, ref, err)
		}
		if got := d.Context().RepositoryStr(); got != "kindest/node" {
			return nil, fmt.Errorf("line %d: %q is not kindest/node but %s", n, ref, got)
		}
		if want := "kindest/node:" + version + "@"; !strings.HasPrefix(ref, want) {
			return nil, fmt.Errorf("line %d: %q is not tagged %s", n, ref, version)
		}
		images = append(images, publishedImage{Release: version, Reference: ref})
	}
	return images, s.Err()
}

func TestParsePublished(t *testing.T) {
	const digest = "sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5"
	cases := []struct {
		name    string
		in      string
		want    []publishedImage
		wantErr string
	}{
		{
			name: "comments and blank lines are skipped",
			in:   "# kind's images\n\nv1.37.0 kindest/node:v1.37.0@" + digest + "\n",
			want: []publishedImage{{Release: "v1.37.0", Reference: "kindest/node:v1.37.0@" + digest}},
		},
		{name: "a tag without a digest", in: "v1.37.0 kindest/node:v1.37.0\n", wantErr: "not pinned by digest"},
		{name: "a short digest", in: "v1.37.0 kindest/node:v1.37.0@sha256:a1ed\n", wantErr: "not pinned by digest"},
		{name: "another release's tag", in: "v1.36.0 kindest/node:v1.37.0@" + digest + "\n", wantErr: "is not tagged v1.36.0"},
		{name: "another repository", in: "v1.37.0 example/node:v1.37.0@" + digest + "\n", wantErr: "is not kindest/node"},
		{name: "a release without its v", in: "1.37.0 kindest/node:v1.37.0@" + digest + "\n", wantErr: "is not a release"},
		{name: "a third field", in: "v1.37.0 kindest/node:v1.37.0@" + digest + " latest\n", wantErr: "want a release and a reference"},
		{
			name:    "a release twice",
			in:      "v1.37.0 kindest/node:v1.37.0@" + digest + "\nv1.37.0 kindest/node:v1.37.0@" + digest + "\n",
			wantErr: "line 2: v1.37.0 is listed twice",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePublished([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parsePublished: error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsePublished: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parsePublished (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPublishedNodeImages checks the file make kind-up reads: well formed,
// one image for each supported minor's pinned release or its minor, and
// holding kind's own default image, of the kind release the project builds
// (so that a kind bump without the new release notes' digests fails here).
func TestPublishedNodeImages(t *testing.T) {
	images := readPublished(t)
	refs := map[string]bool{}
	minors := map[string]bool{}
	for _, im := range images {
		refs[im.Reference] = true
		minors[minorOf(im.Release)] = true
	}
	if !refs[kinddefaults.Image] {
		t.Errorf("kind-config/published-node-images lacks kind's default node image %s", kinddefaults.Image)
	}

	// The kind the scripts build is the kind whose defaults were read above.
	built := submatch(t, filepath.Join(root, "hack", "kind", "build-kind.sh"), `KIND_VERSION="\$\{KIND_VERSION:-(v[^}]+)\}"`)
	required := submatch(t, filepath.Join(root, "hack", "tools", "go.mod"), `(?m)^\s*sigs\.k8s\.io/kind (v\S+)`)
	if built != required {
		t.Errorf("hack/kind/build-kind.sh builds kind %s, hack/tools/go.mod requires %s: the digests must come from the kind that runs", built, required)
	}

	// Every supported minor pinned to a release has a published image
	// (kind publishes one per minor; the patch release may differ from
	// ours). kind publishes no pre-release: for a series pinned to one,
	// make kind-up has kind build the base, as for any release not listed.
	all, err := release.Supported(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.PreRelease {
			continue
		}
		if !minors["v"+s.Minor] {
			t.Errorf("kind-config/published-node-images has no image of v%s (%s)", s.Minor, s.Folder)
		}
	}
}

// TestPublishedNodeImageLookup asks the scripts' own lookup
// (hack/lib/kind.sh published_node_image) for every listed release and for
// releases kind does not publish, which must get nothing: make kind-up then
// has kind build the base.
func TestPublishedNodeImageLookup(t *testing.T) {
	images := readPublished(t)
	want := map[string]string{}
	for _, im := range images {
		want[strings.TrimPrefix(im.Release, "v")] = im.Reference
	}
	// Not published: the default release (the newest minor pinned to a
	// release), while kind publishes another release of it (today), and a
	// release sharing a listed one's prefix.
	if pinned := pinnedVersion(t); want[pinned] == "" {
		want[pinned] = ""
	}
	for _, im := range images {
		want[strings.TrimPrefix(im.Release, "v")+"0"] = ""
	}
	// Nor any pre-release a series is pinned to: kind builds that base.
	all, err := release.Supported(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.PreRelease {
			want[s.Release] = ""
		}
	}
	for version, ref := range want {
		t.Run(version, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `source hack/lib.sh && published_node_image`)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "K8S_VERSION="+version)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("published_node_image: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != ref {
				t.Errorf("published_node_image of %s = %q, want %q", version, got, ref)
			}
		})
	}
}

// readPublished parses kind-config/published-node-images.
func readPublished(t *testing.T) []publishedImage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "kind-config", "published-node-images"))
	if err != nil {
		t.Fatal(err)
	}
	images, err := parsePublished(raw)
	if err != nil {
		t.Fatalf("kind-config/published-node-images: %v", err)
	}
	return images
}

// minorOf gives vX.Y of vX.Y.Z.
func minorOf(version string) string {
	return version[:strings.LastIndex(version, ".")]
}

func submatch(t *testing.T, path, pattern string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(pattern).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("%s: no match for %s", path, pattern)
	}
	return string(m[1])
}
