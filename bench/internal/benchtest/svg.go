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

package benchtest

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

// SVGNode is an element of a parsed SVG.
type SVGNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []SVGNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

// Attr is the value of the element's attribute name ("" when it has none).
func (n SVGNode) Attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk calls fn on n and every element below it.
func (n SVGNode) walk(fn func(SVGNode)) {
	fn(n)
	for _, c := range n.Children {
		c.walk(fn)
	}
}

// Find returns the elements of that name (and class, unless "").
func (n SVGNode) Find(name, class string) []SVGNode {
	var out []SVGNode
	n.walk(func(e SVGNode) {
		if e.XMLName.Local == name && (class == "" || e.Attr("class") == class) {
			out = append(out, e)
		}
	})
	return out
}

// ParseSVG parses an SVG document strictly and checks what every picture
// of the report has: an <svg> root in the SVG namespace with its size and
// viewBox, a white ground, a title, and no NaN or infinity anywhere.
func ParseSVG(t *testing.T, doc string) SVGNode {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	var root SVGNode
	if err := d.Decode(&root); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, doc)
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Errorf("root %v, want svg in the SVG namespace", root.XMLName)
	}
	for _, a := range []string{"width", "height", "viewBox"} {
		if root.Attr(a) == "" {
			t.Errorf("no %s on the root", a)
		}
	}
	if w, err := strconv.Atoi(root.Attr("width")); err != nil || w <= 0 {
		t.Errorf("width %q", root.Attr("width"))
	}
	if len(root.Find("rect", "")) == 0 || root.Find("rect", "")[0].Attr("fill") != "white" {
		t.Error("no white ground first")
	}
	if texts := root.Find("text", ""); len(texts) == 0 || texts[0].Attr("font-weight") != "bold" || texts[0].Text == "" {
		t.Error("no title")
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(doc, bad) {
			t.Errorf("%s in the SVG:\n%s", bad, doc)
		}
	}
	return root
}
