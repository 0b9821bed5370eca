/*
Copyright 2026 The sidecar-kubelet Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"regexp"
	"strings"
)

// A machine path is an absolute path that names one machine's files: a
// checkout, a home, a temporary directory, a toolchain's installation. A
// reader's machine has none of them, and a transcript that prints them
// tells the reader about the machine it ran on rather than about the
// project. Paths that every node, container or kernel has are not machine
// paths: /var/lib/kubelet, /etc/containerd/config.toml, /usr/bin/kubelet,
// /run/containerd, /proc/<pid>/stat, a pod's /shared/done, an HTTP path
// such as /ready or /metrics/probes, and placeholders such as
// /path/to/kubeconfig or /home/<user>. Paths relative to the repository,
// $PWD/... and <repo>/... are not absolute, and are what to write instead.

// pathStartRE finds where an absolute Unix path may start: a slash at the
// start of a line or after a character that ends a word in prose, code or
// JSON (a blank, a quote, a bracket, '=', ':', ','). A slash after a
// letter, a digit, '.', '~', '$', '}' or '>' continues a relative path,
// $PWD/..., ~/..., ${ROOT}/... or <repo>/..., none of which is absolute.
// The path runs up to the first character that cannot be part of one in a
// document: a blank, a quote, a bracket, '|', ',', ';', ':' or '*' (so
// /proc/<pid>/stat yields /proc/, and file.go:12 yields file.go).
var pathStartRE = regexp.MustCompile("(?:^|[\\s`'\"(\\[{=:,;|*])(/+[^\\s`'\"()\\[\\]{}<>|,;:*\\\\]*)")

// windowsPathRE finds a path with a drive letter: C:\Users\... (C:\\...
// inside JSON), or C:/Users/... with a capital letter (a lower-case one
// would take the end of a word before a colon for a drive).
var windowsPathRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9])((?:[A-Za-z]:\\{1,2}|[A-Z]:/)[A-Za-z0-9_.$~-][^\s` + "`" + `'"()<>|,;*]*)`)

// machinePaths returns the machine paths of one line of text with why each
// is one, in the order they appear. inRepo says whether a slash-separated
// path relative to the repository's top exists in it.
func machinePaths(line string, inRepo func(string) bool) []found {
	var out []found
	for _, m := range pathStartRE.FindAllStringSubmatch(line, -1) {
		p := m[1]
		switch {
		case strings.HasPrefix(p, "///"):
			// file:///x, unix:///x: an empty authority, then the path.
			p = "/" + strings.TrimLeft(p, "/")
		case strings.HasPrefix(p, "//"):
			// https://host/...: the path of a URL, on a host.
			continue
		}
		p = strings.TrimRight(p, ".") // the end of a sentence
		if why := machinePath(p, inRepo); why != "" {
			out = append(out, found{path: p, why: why})
		}
	}
	for _, m := range windowsPathRE.FindAllStringSubmatch(line, -1) {
		out = append(out, found{path: m[1], why: "a Windows path, of one machine's disk"})
	}
	return out
}

type found struct {
	path string
	why  string
}

// machinePath says why the absolute Unix path p names one machine's files,
// or returns "" when it does not. inRepo says whether a path relative to
// the repository's top exists in it.
func machinePath(p string, inRepo func(string) bool) string {
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	has := func(prefix ...string) bool {
		if len(parts) < len(prefix) {
			return false
		}
		for i, c := range prefix {
			if parts[i] != c {
				return false
			}
		}
		return true
	}
	for i, c := range parts {
		// Every checkout has _output and .git, no node or image does: an
		// absolute path through them is a path into one checkout.
		if i > 0 && c == "_output" {
			return "a checkout's _output"
		}
		if c == ".git" {
			return "a checkout's .git"
		}
	}
	switch {
	case (has("home") || has("Users")) && len(parts) >= 2:
		return "a home directory"
	case has("root") && len(parts) >= 2:
		return "root's home directory"
	case has("tmp") && len(parts) >= 2,
		has("var", "tmp") && len(parts) >= 3,
		has("private", "tmp"), has("private", "var"),
		has("var", "folders") && len(parts) >= 3:
		return "a temporary directory"
	case has("work"), has("workspace"), has("builds"), has("github", "workspace"):
		return "a workspace of checkouts"
	case has("usr", "local", "go"), has("usr", "lib") && len(parts) >= 3 && strings.HasPrefix(parts[2], "go"):
		return "a machine's Go installation"
	}
	// A path that ends in two or more components of this repository, under
	// a folder of its own, is a path into a checkout: /srv/ci/sidecar-kubelet/
	// docs/kind.md. (One component is not enough: a node's
	// /var/lib/kubelet ends in kubelet, which is also a folder here.)
	for i := 1; i+2 <= len(parts); i++ {
		if inRepo(strings.Join(parts[i:], "/")) {
			return "a checkout of this repository (" + strings.Join(parts[i:], "/") + " is a path of the repository)"
		}
	}
	return ""
}
