package buildcache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKey(t *testing.T) {
	for _, tc := range []struct {
		desc, want string
	}{
		// printf '' | sha256sum, and printf 'k8s 1.99.1\n' | sha256sum.
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc\n", "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb"},
	} {
		if got := Key(tc.desc); got != tc.want {
			t.Errorf("Key(%q) = %s, want %s", tc.desc, got, tc.want)
		}
	}
}

func TestStampFresh(t *testing.T) {
	for _, tc := range []struct {
		name    string
		stamp   *string // nil: no stamp file
		outputs []string
		missing []string // outputs that do not exist
		want    bool
	}{
		{name: "no stamp", want: false},
		{name: "the key, as cache_record writes it", stamp: ptr("k1\n"), want: true},
		{name: "the key without a newline", stamp: ptr("k1"), want: true},
		{name: "the key and blank lines, as $(cat) reads it", stamp: ptr("k1\n\n"), want: true},
		{name: "another key", stamp: ptr("k2\n"), want: false},
		{name: "a longer key", stamp: ptr("k1x\n"), want: false},
		{name: "an empty stamp", stamp: ptr(""), want: false},
		{name: "every output there", stamp: ptr("k1\n"), outputs: []string{"a", "b"}, want: true},
		{name: "an output missing", stamp: ptr("k1\n"), outputs: []string{"a", "b"}, missing: []string{"b"}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := Stamp(filepath.Join(dir, ".group.fingerprint"))
			if tc.stamp != nil {
				if err := os.WriteFile(string(s), []byte(*tc.stamp), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var outputs []string
			for _, o := range tc.outputs {
				p := filepath.Join(dir, o)
				outputs = append(outputs, p)
				if !contains(tc.missing, o) {
					if err := os.WriteFile(p, nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := s.Fresh("k1", outputs...); got != tc.want {
				t.Errorf("Fresh = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStampRecordForget(t *testing.T) {
	dir := t.TempDir()
	s := Stamp(filepath.Join(dir, "sub", "out.tar.fingerprint"))
	if err := s.Forget(); err != nil {
		t.Fatalf("Forget of no stamp: %v", err)
	}
	if err := s.Record("k1"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(string(s))
	if err != nil {
		t.Fatal(err)
	}
	// The shell's format: the key and a newline.
	if diff := cmp.Diff("k1\n", string(b)); diff != "" {
		t.Errorf("stamp (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(string(s) + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary stamp is left: %v", err)
	}
	if err := s.Forget(); err != nil {
		t.Fatal(err)
	}
	if s.Holds("k1") {
		t.Error("the stamp holds the key after Forget")
	}
}

func TestStepRun(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stamp     string // "" for none
		output    bool
		buildErr  error
		wantBuilt bool
		wantErr   bool
		// The stamp after the run ("" for none), and whether build saw it
		// forgotten.
		wantStamp     string
		wantForgotten bool
	}{
		{name: "fresh: nothing runs", stamp: "new", output: true, wantBuilt: false, wantStamp: "new\n"},
		{name: "no stamp", output: true, wantBuilt: true, wantStamp: "new\n", wantForgotten: true},
		{name: "stale", stamp: "old", output: true, wantBuilt: true, wantStamp: "new\n", wantForgotten: true},
		{name: "output missing", stamp: "new", wantBuilt: true, wantStamp: "new\n", wantForgotten: true},
		{name: "build fails: forgotten, not recorded", stamp: "old", output: true, buildErr: errors.New("boom"),
			wantBuilt: true, wantErr: true, wantStamp: "", wantForgotten: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			s := Stamp(out + ".fingerprint")
			if tc.stamp != "" {
				if err := s.Record(tc.stamp); err != nil {
					t.Fatal(err)
				}
			}
			if tc.output {
				if err := os.WriteFile(out, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			forgotten := false
			built, err := Step{Stamp: s, Key: "new", Outputs: []string{out}}.Run(func() error {
				_, statErr := os.Stat(string(s))
				forgotten = errors.Is(statErr, os.ErrNotExist)
				return tc.buildErr
			})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			b, _ := os.ReadFile(string(s))
			got := struct {
				Built, Forgotten bool
				Stamp            string
			}{built, forgotten, string(b)}
			want := struct {
				Built, Forgotten bool
				Stamp            string
			}{tc.wantBuilt, tc.wantForgotten, tc.wantStamp}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescriptionFiles(t *testing.T) {
	dir := t.TempDir()
	for p, content := range map[string]string{
		"kubelet/a.go":      "package a\n",
		"kubelet/a_test.go": "package a\n",
		"kubelet/sub/b.go":  "package b\n",
		"kubelet/README":    "x\n",
		"go.mod":            "module m\n",
		"other/ignored.go":  "package o\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goFiles := func(rel string) bool { return filepath.Ext(rel) == ".go" && !strings.HasSuffix(rel, "_test.go") }
	for _, tc := range []struct {
		name  string
		paths []string
		keep  func(string) bool
		want  string
	}{
		{
			name:  "sha256sum lines sorted by path, as cache_hash_files",
			paths: []string{"kubelet"}, keep: goFiles,
			want: sum("package a\n") + "  kubelet/a.go\n" + sum("package b\n") + "  kubelet/sub/b.go\n",
		},
		{
			name: "every file, several paths", paths: []string{"go.mod", "kubelet/sub"},
			want: sum("module m\n") + "  go.mod\n" + sum("package b\n") + "  kubelet/sub/b.go\n",
		},
		{name: "a missing path adds nothing", paths: []string{"go.sum"}, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Description
			if err := d.Files(dir, tc.paths, tc.keep); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, d.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescriptionLines(t *testing.T) {
	var d Description
	d.Line("k8s", "1.99.1", "kubelet static").Line("tree abc").Text("go1.26\nlinux\n")
	want := "k8s 1.99.1 kubelet static\ntree abc\ngo1.26\nlinux\n"
	if diff := cmp.Diff(want, d.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d.Key() != Key(want) {
		t.Error("Key is not the key of the text")
	}
}

func sum(s string) string { return Key(s) }

func ptr(s string) *string { return &s }

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
