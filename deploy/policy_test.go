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

// Package deploy_test keeps the admission policy of contract rule 16
// (sidecar-annotation-policy.yaml) in step with the kubelet: every value
// below goes through sidecars.Decide and through the policy, evaluated by
// k8s.io/apiserver's own ValidatingAdmissionPolicy code (its CEL
// environment, variables, match conditions, message handling and cost
// budget), and both must refuse the same values with the same text.
package deploy_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecarevents"
	"github.com/sidecar-kubelet/sidecar-kubelet/kubelet/sidecars"
)

const policyFile = "sidecar-annotation-policy.yaml"

// The API servers the series support, v1.35 to v1.38, accept new
// expressions in the CEL environment of the minor before their own.
var supportedCompatibilityVersions = []*version.Version{
	version.MajorMinor(1, 34), version.MajorMinor(1, 35), version.MajorMinor(1, 36), version.MajorMinor(1, 37),
}

var (
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podGVK  = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
)

// readPolicy reads the policy and its binding from the file, strictly: a
// misspelt field fails.
func readPolicy(t testing.TB) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(policyFile)
	if err != nil {
		t.Fatal(err)
	}
	var policy *admissionregistrationv1.ValidatingAdmissionPolicy
	var binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := docs.Read()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", policyFile, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("%s: %v", policyFile, err)
		}
		var into any
		switch meta.Kind {
		case "ValidatingAdmissionPolicy":
			policy = &admissionregistrationv1.ValidatingAdmissionPolicy{}
			into = policy
		case "ValidatingAdmissionPolicyBinding":
			binding = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			into = binding
		case "":
			continue
		default:
			t.Fatalf("%s: unexpected kind %q", policyFile, meta.Kind)
		}
		if meta.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() {
			t.Errorf("%s: %s is %s, want %s", policyFile, meta.Kind, meta.APIVersion, admissionregistrationv1.SchemeGroupVersion)
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			t.Fatalf("%s: %s: %v", policyFile, meta.Kind, err)
		}
	}
	if policy == nil || binding == nil {
		t.Fatalf("%s: want one ValidatingAdmissionPolicy and one ValidatingAdmissionPolicyBinding", policyFile)
	}
	return policy, binding
}

var (
	compileOnce sync.Once
	compiled    validating.Validator
)

// validator compiles the policy as the API server's plugin does
// (compilePolicy in k8s.io/apiserver's validating package): one
// composition environment for the variables, the match conditions, the
// validations and their message expressions.
func validator(t testing.TB) validating.Validator {
	t.Helper()
	compileOnce.Do(func() {
		policy, _ := readPolicy(t)
		spec := policy.Spec
		compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
		if err != nil {
			t.Fatal(err)
		}
		decls := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
		messageDecls := plugincel.OptionalVariableDeclarations{}
		var variables []plugincel.NamedExpressionAccessor
		for _, v := range spec.Variables {
			variables = append(variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
		}
		compiler.CompileAndStoreVariables(variables, decls, environment.StoredExpressions)
		var conditions []plugincel.ExpressionAccessor
		for i := range spec.MatchConditions {
			conditions = append(conditions, (*matchconditions.MatchCondition)(&spec.MatchConditions[i]))
		}
		matcher := matchconditions.NewMatcher(compiler.CompileCondition(conditions, decls, environment.StoredExpressions), spec.FailurePolicy, "policy", "validate", policy.Name)
		var validations, messages []plugincel.ExpressionAccessor
		for _, v := range spec.Validations {
			validations = append(validations, &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason})
			var m plugincel.ExpressionAccessor
			if v.MessageExpression != "" {
				m = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
			}
			messages = append(messages, m)
		}
		compiled = validating.NewValidator(
			compiler.CompileCondition(validations, decls, environment.StoredExpressions),
			matcher,
			compiler.CompileCondition(nil, decls, environment.StoredExpressions),
			compiler.CompileCondition(messages, messageDecls, environment.StoredExpressions),
			spec.FailurePolicy, nil)
	})
	if compiled == nil {
		t.FailNow()
	}
	return compiled
}

// verdict is what the policy decided for one request.
type verdict struct {
	denied  bool
	message string
	// err is an evaluation error: the policy failed (and, under
	// failurePolicy Ignore, admitted the pod).
	err string
}

// review runs the policy on a request for pod (old: the pod before an
// UPDATE) in a namespace without labels, as the API server would.
func review(t testing.TB, op admission.Operation, pod, old *v1.Pod) verdict {
	t.Helper()
	var opts runtime.Object = &metav1.CreateOptions{}
	if op == admission.Update {
		opts = &metav1.UpdateOptions{}
	}
	versioned := &admission.VersionedAttributes{VersionedKind: podGVK, VersionedObject: admission.NewLazyObject(pod)}
	if old != nil {
		versioned.Attributes = admission.NewAttributesRecord(pod, old, podGVK, pod.Namespace, pod.Name, podsGVR, "", op, opts, false, nil)
		versioned.VersionedOldObject = admission.NewLazyObject(old)
	} else {
		versioned.Attributes = admission.NewAttributesRecord(pod, nil, podGVK, pod.Namespace, pod.Name, podsGVR, "", op, opts, false, nil)
	}
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: pod.Namespace}}
	result := validator(t).Validate(context.Background(), podsGVR, versioned, nil, ns, celconfig.RuntimeCELCostBudget, nil)
	var v verdict
	for _, d := range result.Decisions {
		switch {
		case d.Evaluation == validating.EvalError:
			v.err = d.Message
		case d.Action == validating.ActionDeny:
			v.denied, v.message = true, d.Message
			if d.Reason != metav1.StatusReasonInvalid {
				t.Errorf("the policy denied with reason %q, want %q", d.Reason, metav1.StatusReasonInvalid)
			}
		}
	}
	return v
}

// newPod is a pod with these containers and init containers (the
// second one a native sidecar) and annotations.
func newPod(containers, initContainers []string, annotations map[string]string) *v1.Pod {
	always := v1.ContainerRestartPolicyAlways
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: annotations},
	}
	for _, name := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: name, Image: "registry.example/image:1"})
	}
	for i, name := range initContainers {
		c := v1.Container{Name: name, Image: "registry.example/image:1"}
		if i == 1 {
			c.RestartPolicy = &always
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	}
	return pod
}

// expectSameAsKubelet checks that the policy refuses the pod at CREATE
// exactly when the kubelet's Decide finds its annotations malformed, with
// the kubelet's text: the problems the event lists after "Running the pod
// without sidecar ordering: ", so that the event made of the policy's
// message is the kubelet's event.
// It returns the kubelet's decision.
func expectSameAsKubelet(t *testing.T, pod *v1.Pod) sidecars.Decision {
	t.Helper()
	d := sidecars.Decide(pod, pod.Annotations)
	got := review(t, admission.Create, pod, nil)
	annotations := short(pod.Annotations)
	if got.err != "" {
		t.Fatalf("annotations %s: the policy failed: %s", annotations, got.err)
	}
	if waitReadyLeftToKubelet(pod) {
		if got.denied {
			t.Errorf("annotations %s: wait-ready is the kubelet's to check, yet the policy refuses: %s", annotations, got.message)
		}
		return d
	}
	switch {
	case d.Err == nil && got.denied:
		t.Errorf("annotations %s: the kubelet accepts them (layout %+v), the policy refuses: %s", annotations, d.Layout, got.message)
	case d.Err != nil && !got.denied:
		t.Errorf("annotations %s: the kubelet refuses them (%s), the policy admits the pod", annotations, d.Err)
	case d.Err != nil && got.message != d.Err.Error():
		t.Errorf("annotations %s: the policy's message differs from the kubelet's:\n policy:  %s\n kubelet: %s", annotations, got.message, d.Err)
	case d.Err != nil:
		if want, gotEvent := sidecarevents.InvalidAnnotation(d.Err), sidecarevents.InvalidAnnotation(errors.New(got.message)); gotEvent != want {
			t.Errorf("annotations %s: the event of the policy's message differs from the kubelet's:\n %+v\n %+v", annotations, gotEvent, want)
		}
	}
	return d
}

// waitReadyLeftToKubelet reports whether the pod's wait-ready is one the
// policy leaves to the kubelet (deploy/README.md): not a boolean, and a
// list of names, or one name of a container of the pod that is not a
// native sidecar.
func waitReadyLeftToKubelet(pod *v1.Pod) bool {
	value, ok := pod.Annotations[sidecars.WaitReadyAnnotation]
	if !ok {
		return false
	}
	if _, err := strconv.ParseBool(strings.TrimSpace(value)); err == nil && len(value) <= 32 {
		return false
	}
	if strings.Contains(value, ",") {
		return true
	}
	name := strings.TrimSpace(value)
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways
		}
	}
	return slices.ContainsFunc(pod.Spec.Containers, func(c v1.Container) bool { return c.Name == name })
}

// TestPolicyOnTheNamedForm checks wait-ready naming native sidecars: one
// name of a native sidecar is valid, and the sidecars annotation is still
// checked beside it; a list, or the name of another container, is left to
// the kubelet; a name the pod does not have is refused in the kubelet's
// words.
func TestPolicyOnTheNamedForm(t *testing.T) {
	for _, tc := range []struct {
		sidecars, waitReady string
		wantDenied          bool
	}{
		{"a", "native", false},
		{"a", " native ", false},
		{"nope", "native", true},
		{"a", "native,init", false},
		{"a", "native,native", false},
		{"a", "init", false},
		{"a", "app", false},
		{"a", "vault-agent", true},
		{"nope", "native,vault-agent", false},
	} {
		pod := newPod(appContainers, initContainers, map[string]string{sidecars.SidecarsAnnotation: tc.sidecars, sidecars.WaitReadyAnnotation: tc.waitReady})
		expectSameAsKubelet(t, pod)
		if got := review(t, admission.Create, pod, nil); got.denied != tc.wantDenied {
			t.Errorf("sidecars %q, wait-ready %q: denied %v (%s), want %v", tc.sidecars, tc.waitReady, got.denied, got.message, tc.wantDenied)
		}
	}
}

// TestPolicyCompilesOnEverySupportedServer compiles every expression as an
// API server of each supported minor checks a new policy: in the CEL
// environment of its compatibility version (one minor back), as new
// expressions.
func TestPolicyCompilesOnEverySupportedServer(t *testing.T) {
	policy, _ := readPolicy(t)
	spec := policy.Spec
	for _, v := range supportedCompatibilityVersions {
		t.Run("compatibility version "+v.String(), func(t *testing.T) {
			envs := environment.MustBaseEnvSet(v)
			compiler, err := plugincel.NewCompositedCompiler(envs)
			if err != nil {
				t.Fatal(err)
			}
			decls := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
			for _, variable := range spec.Variables {
				if r := compiler.CompileAndStoreVariable(&validating.Variable{Name: variable.Name, Expression: variable.Expression}, decls, environment.NewExpressions); r.Error != nil {
					t.Errorf("variable %s: %v", variable.Name, r.Error)
				}
			}
			for _, c := range spec.MatchConditions {
				if r := plugincel.NewCompiler(envs).CompileCELExpression((*matchconditions.MatchCondition)(&c), decls, environment.NewExpressions); r.Error != nil {
					t.Errorf("match condition %s: %v", c.Name, r.Error)
				}
			}
			for i, validation := range spec.Validations {
				if r := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: validation.Expression}, decls, environment.NewExpressions); r.Error != nil {
					t.Errorf("validation %d: %v", i, r.Error)
				}
				if r := compiler.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: validation.MessageExpression}, plugincel.OptionalVariableDeclarations{}, environment.NewExpressions); r.Error != nil {
					t.Errorf("validation %d's messageExpression: %v", i, r.Error)
				}
			}
		})
	}
}

// The pod of most cases: the app containers app, a and b, the plain init
// container init and the native sidecar native (as in the kubelet's own
// tests of Decide).
var (
	appContainers  = []string{"app", "a", "b"}
	initContainers = []string{"init", "native"}
	// roomyContainers are appContainers and eight of 63 bytes: the longest
	// value valid for their pod is 542 bytes, room for long items that the
	// length check lets through to the other rules.
	roomyContainers = append(slices.Clone(appContainers),
		long("l1"), long("l2"), long("l3"), long("l4"), long("l5"), long("l6"), long("l7"), long("l8"))
)

// long is a container name of 63 bytes that starts with prefix.
func long(prefix string) string { return prefix + strings.Repeat("x", 63-len(prefix)) }

// agrees checks the pod with these annotations in both pods: appContainers'
// and roomyContainers', each with initContainers. It counts, in seen, the
// kinds of problem the kubelet found (problemKinds), and "valid".
func agrees(t *testing.T, annotations map[string]string, seen map[string]int) {
	t.Helper()
	for _, containers := range [][]string{appContainers, roomyContainers} {
		d := expectSameAsKubelet(t, newPod(containers, initContainers, annotations))
		if d.Err == nil {
			seen["valid"]++
		}
		for _, kind := range problemKinds {
			if d.Err != nil && strings.Contains(d.Err.Error(), kind) {
				seen[kind]++
			}
		}
	}
}

// problemKinds are words of each problem the kubelet reports.
var problemKinds = []string{
	"longer than any valid value", "names no container", "is empty", "is listed twice", "is an init container",
	"is not a container of the pod", "names every container", "is not a boolean", "more",
}

// expectEveryKind fails unless seen counts valid values and every kind of
// problem: a table that tested less would pass for nothing.
func expectEveryKind(t *testing.T, seen map[string]int) {
	t.Helper()
	t.Logf("values seen: %v", seen)
	for _, kind := range append([]string{"valid"}, problemKinds...) {
		if seen[kind] == 0 {
			t.Errorf("no value was %q", kind)
		}
	}
}

// seeds are values of both annotations: the kubelet's FuzzDecide seeds and
// more, each kind of problem, valid forms, and the quoting of odd
// characters.
var seeds = []struct{ sidecars, waitReady string }{
	// Valid.
	{"a", "false"},
	{"a", "true"},
	{"a,b", "true"},
	{"b,a", "false"},
	{" a , b ", " TRUE "},
	{"a", "1"},
	{"b", "F"},
	{"\u00a0a\u3000,\tb\n", "\u0085t\u00a0"},
	// Empty value, empty items.
	{"", "false"},
	{"   ", "false"},
	{"\u00a0\u2003", "false"},
	{"a,,b", "false"},
	{"a,", "false"},
	{",", "false"},
	{"a, ,b", "true"},
	// Duplicates.
	{"a,a", "false"},
	{"a, b ,a ", "false"},
	{"a,a,a,b,b", "false"},
	{"nope,nope", "false"},
	{"init,init", "false"},
	// Unknown names, init containers.
	{"nope", "false"},
	{"A", "false"},
	{"init", "false"},
	{"native", "true"},
	{"a,b-c", "false"},
	{"a-b,a", "false"},
	// Every container named.
	{"app,a,b", "false"},
	{"b,app,a", "true"},
	{"b,app,a,a", "true"},
	// Bad wait-ready.
	{"a", "yes"},
	{"a", ""},
	{"a", "truee"},
	{"a", "  true  " + strings.Repeat(" ", 30)},
	{"a", strings.Repeat("y", 1000)},
	// Every word strconv.ParseBool takes, and near misses.
	{"a", "1"}, {"a", "t"}, {"a", "T"}, {"a", "TRUE"}, {"a", "true"}, {"a", "True"},
	{"a", "0"}, {"a", "f"}, {"a", "F"}, {"a", "FALSE"}, {"a", "false"}, {"a", "False"},
	{"a", "tRUE"}, {"a", "fAlse"}, {"a", "on"}, {"a", "off"}, {"a", "2"}, {"a", "y"}, {"a", "\ttrue\n"},
	// Several problems at once, more than eight.
	{"a,,a,nope,init,native,", "maybe"},
	{"app,a,b,b", "no"},
	{",,,,,,,,,,", "no"},
	{"x,y,z,w,v,u,t,s,r", "0"},
	{"x,y,z,w,v,u,t,s", "?"},
	{"x,y,z,w,v,u,t", "?"},
	// Quoting: escapes, controls, non-printable and printable non-ASCII.
	{"a\x00,b", "true"},
	{"a\tb", "t"},
	{`"quoted",back\slash`, `\`},
	{"bell\a,bs\b,ff\f,vt\v,cr\rx,nl\nx,del\x7f,esc\x1b", "\x01"},
	{"a,\u00a0b\u00a0", "true"},
	{"nb\u00a0sp,zw\u200bsp,soft\u00adhyphen,bom\ufeff,ls\u2028,c1\u0085x,pua\ue000,max\U0010ffff,nonchar\ufffe", "\u200b"},
	{"é,日本,😀,ǅ,\u0301,x\U0001f600y", "ÿ"},
	{"\U000e0001tag,\U0001d173", "true"},
	// Bytes that are no UTF-8 (a protobuf client can store them).
	{"a\xffb", "\xff"},
	{"x\xe6\x97,\xc3,a", "t\xff"},
	{strings.Repeat("\xff", 70), strings.Repeat("é\xff", 40)},
	{"a," + strings.Repeat("\xe6\x97", 40), "y" + strings.Repeat("\x80", 100)},
	// Long items: cut to 64 bytes, inside a character if need be.
	{strings.Repeat("x", 64), "true"},
	{"a," + strings.Repeat("x", 65), strings.Repeat("t", 65)},
	{strings.Repeat("é", 40), strings.Repeat("é", 40)},
	{"x" + strings.Repeat("日", 30), "x" + strings.Repeat("日", 30)},
	{"xy" + strings.Repeat("😀", 20), "xyz" + strings.Repeat("😀", 20)},
	{strings.Repeat("\x01", 70), strings.Repeat("\u00a0", 40)},
	// Long values.
	{strings.Repeat("nope,", 1000), strings.Repeat("y", 1000)},
	{strings.Repeat(",", 13), "true"},
	{strings.Repeat(",", 12), "true"},
	{strings.Repeat("a", 19), "true"},
	{strings.Repeat("é", 10), "true"},
}

// TestPolicyAgreesWithDecide runs every seed through the kubelet and the
// policy, alone and with each other annotation.
func TestPolicyAgreesWithDecide(t *testing.T) {
	seen := map[string]int{}
	defer expectEveryKind(t, seen)
	for _, s := range seeds {
		for _, annotations := range []map[string]string{
			{sidecars.SidecarsAnnotation: s.sidecars, sidecars.WaitReadyAnnotation: s.waitReady},
			{sidecars.SidecarsAnnotation: s.sidecars},
			{sidecars.WaitReadyAnnotation: s.waitReady, "example.com/other": "x"},
		} {
			agrees(t, annotations, seen)
		}
	}
}

// TestPolicyAgreesWithDecideOnOtherPods varies the pod: one container, no
// init containers, long names, many containers.
func TestPolicyAgreesWithDecideOnOtherPods(t *testing.T) {
	long := strings.Repeat("l", 63)
	many := make([]string, 60)
	for i := range many {
		many[i] = fmt.Sprintf("c%d", i)
	}
	for _, tc := range []struct {
		containers, initContainers []string
		values                     []string
	}{
		{[]string{"app"}, nil, []string{"app", "init", "", "x", "app,app", " app "}},
		{[]string{"app", "proxy"}, nil, []string{"proxy", "app", "proxy,app", "proxy,proxy", "proxy , app", "proxy,"}},
		{[]string{long, "app"}, []string{long + "-init"}, []string{long, long + "-init", long + "x", " " + long + " ", long + "," + long}},
		{many, nil, []string{strings.Join(many[1:], ","), strings.Join(many, ","), strings.Join(many[:30], ", ") + "," + strings.Join(many[:30], ", "), strings.Repeat("c1,", 200)}},
	} {
		for _, value := range tc.values {
			expectSameAsKubelet(t, newPod(tc.containers, tc.initContainers, map[string]string{sidecars.SidecarsAnnotation: value}))
		}
	}
}

// TestPolicyAgreesWithDecideOnRandomValues runs values made of names,
// separators, spaces and odd characters through both.
func TestPolicyAgreesWithDecideOnRandomValues(t *testing.T) {
	names := append(slices.Clone(roomyContainers[:5]), "init", "native", "nope", "A", "a-b")
	odd := []string{
		"x", "\x00", "\x1b", "\x7f", "\xff", "\xe6\x97", `"`, `\`, "é", "日", "😀", "\u200b", "\u00ad", "\ue000", "\U0010ffff", "\u0301", "\u00a0",
		strings.Repeat("x", 40), strings.Repeat("é", 25),
	}
	spaces := []string{"", "", "", " ", "\t", "\n", "\u00a0", "\u3000", "\u0085"}
	waitReady := []string{"true", "false", " T ", "1", "0", "yes", "", "truee", "\u00a0true", strings.Repeat(" ", 31) + "1", strings.Repeat(" ", 32) + "1"}
	seen := map[string]int{}
	defer expectEveryKind(t, seen)
	rng := rand.New(rand.NewPCG(16, 16))
	pick := func(from []string) string { return from[rng.IntN(len(from))] }
	n := 1000
	if testing.Short() {
		n = 100
	}
	for range n {
		items := make([]string, 1+rng.IntN(12))
		for i := range items {
			var b strings.Builder
			b.WriteString(pick(spaces))
			if rng.IntN(3) > 0 {
				b.WriteString(pick(names))
			} else {
				for range rng.IntN(4) {
					b.WriteString(pick(odd))
				}
			}
			b.WriteString(pick(spaces))
			items[i] = b.String()
		}
		if rng.IntN(8) == 0 {
			// Every container of the small pod, shuffled, perhaps with more.
			items = append(slices.Clone(appContainers), items[:rng.IntN(2)]...)
			rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		}
		annotations := map[string]string{sidecars.SidecarsAnnotation: strings.Join(items, ",")}
		if rng.IntN(2) == 0 {
			annotations[sidecars.WaitReadyAnnotation] = pick(waitReady)
		}
		agrees(t, annotations, seen)
		if t.Failed() {
			return
		}
	}
}

// TestPolicyQuotesAsStrconv checks the policy's quoting of a single
// unknown name against strconv.Quote (through the kubelet) for every rune
// class: every ASCII byte, the C1 controls, every character of a few
// blocks, the planes' last characters, and random ones.
func TestPolicyQuotesAsStrconv(t *testing.T) {
	var runes []rune
	for r := rune(0); r < 0x300; r++ {
		runes = append(runes, r)
	}
	for _, block := range [][2]rune{{0x2000, 0x2070}, {0xfe00, 0xfe10}, {0xfff0, 0xfffe}, {0x1f600, 0x1f610}, {0xe0000, 0xe0010}} {
		for r := block[0]; r < block[1]; r++ {
			runes = append(runes, r)
		}
	}
	rng := rand.New(rand.NewPCG(1, 6))
	for range 300 {
		if r := rune(rng.IntN(utf8.MaxRune + 1)); utf8.ValidRune(r) {
			runes = append(runes, r)
		}
	}
	// Eight runes a value: eight problems are quoted at once.
	for i := 0; i < len(runes); i += 8 {
		var items []string
		for _, r := range runes[i:min(i+8, len(runes))] {
			if r == ',' {
				continue
			}
			items = append(items, "x"+string(r)+"y")
		}
		pod := newPod(roomyContainers, initContainers, map[string]string{sidecars.SidecarsAnnotation: strings.Join(items, ",")})
		if err := sidecars.Decide(pod, pod.Annotations).Err; err == nil || !strings.Contains(err.Error(), "is not a container of the pod") {
			t.Fatalf("the kubelet quotes no unknown name of %q: %v", pod.Annotations, err)
		}
		expectSameAsKubelet(t, pod)
		if t.Failed() {
			return
		}
	}
}

// TestPolicyCostsLittle: the longest values the API accepts, and pods of
// many containers, are decided within the API server's CEL budget (the
// policy never fails), and quickly. A value with more than 600 items that
// name containers is left to the kubelet: the policy admits the pod.
func TestPolicyCostsLittle(t *testing.T) {
	// The API server accepts 256 KiB of annotations in all, keys included.
	const room = 256<<10 - len(sidecars.SidecarsAnnotation) - len(sidecars.WaitReadyAnnotation) - 64
	names := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("container-%d", i)
		}
		return s
	}
	big := names(1000)
	longest := len(strings.Join(big, ",")) + 2*len(big) + 1 // maxSidecarsLen
	for _, tc := range []struct {
		name       string
		containers []string
		sidecars   string
		// leftToKubelet: more than 600 items name containers.
		leftToKubelet bool
		// waitReady is the wait-ready value; "": room/8 bytes.
		waitReady string
	}{
		{name: "a wait-ready value as long as the API accepts", containers: appContainers, sidecars: "a", waitReady: strings.Repeat("é", room/2-4)},
		{name: "a value as long as the API accepts", containers: appContainers, sidecars: strings.Repeat("nope,", room/len("nope,"))},
		{name: "as long, of multi-byte characters", containers: appContainers, sidecars: strings.Repeat("日", room/3)},
		{name: "1000 containers, the longest value for them: empty items", containers: big, sidecars: strings.Repeat(",", longest)},
		{name: "1000 containers, the longest value for them: unknown names", containers: big, sidecars: strings.Repeat("nope,", longest/5)},
		{name: "1000 containers, 600 of them sidecars", containers: big, sidecars: strings.Join(big[:600], ",")},
		{name: "1000 containers, 300 of them named twice", containers: big, sidecars: strings.Join(big[:300], ",") + "," + strings.Join(big[:300], ",")},
		{name: "601 containers, 600 of them sidecars", containers: big[:601], sidecars: strings.Join(big[1:601], ",")},
		{name: "1000 containers, 999 of them sidecars", containers: big, sidecars: strings.Join(big[1:], ","), leftToKubelet: true},
		{name: "1000 containers, 601 of them named", containers: big, sidecars: strings.Join(big[:601], ",") + ",nope", leftToKubelet: true},
		{name: "1000 containers, 400 of them named twice", containers: big, sidecars: strings.Join(big[:400], ",") + "," + strings.Join(big[:400], ","), leftToKubelet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.waitReady == "" {
				tc.waitReady = strings.Repeat("y", room/8)
			}
			pod := newPod(tc.containers, initContainers, map[string]string{
				sidecars.SidecarsAnnotation:  tc.sidecars,
				sidecars.WaitReadyAnnotation: tc.waitReady,
			})
			start := time.Now()
			if tc.leftToKubelet {
				if got := review(t, admission.Create, pod, nil); got.denied || got.err != "" {
					t.Errorf("want the pod admitted, left to the kubelet; got %+v", got)
				}
			} else {
				expectSameAsKubelet(t, pod)
			}
			t.Logf("sidecars %d bytes, wait-ready %d bytes, %d containers: %v", len(tc.sidecars), len(tc.waitReady), len(tc.containers), time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestPolicyMessageFitsTheAPIServersBound: the longest message the policy
// can write, eight problems each quoting 64 bytes that Go escapes to four
// characters and the count of the rest, stays within what the API server
// allows a message expression (it would say "failed expression" instead).
func TestPolicyMessageFitsTheAPIServersBound(t *testing.T) {
	var long []string
	for i := range 10 {
		long = append(long, fmt.Sprintf("%s%d", strings.Repeat("c", 62), i))
	}
	item := strings.Repeat("\x01", 65)
	pod := newPod(long, []string{long[0] + "-init"}, map[string]string{
		sidecars.SidecarsAnnotation:  strings.Repeat(item+",", 9) + item,
		sidecars.WaitReadyAnnotation: strings.Repeat("\x01", 100),
	})
	expectSameAsKubelet(t, pod)
	got := review(t, admission.Create, pod, nil)
	t.Logf("the longest message: %d bytes", len(got.message))
	if len(got.message) > celconfig.MaxEvaluatedMessageExpressionSizeBytes {
		t.Errorf("a message of %d bytes, more than the %d the API server takes", len(got.message), celconfig.MaxEvaluatedMessageExpressionSizeBytes)
	}
}

// TestPolicyOnUpdate: an UPDATE is checked only when it changes one of the
// two annotations; mirror pods are never refused.
func TestPolicyOnUpdate(t *testing.T) {
	pod := func(annotations map[string]string) *v1.Pod {
		return newPod(appContainers, initContainers, annotations)
	}
	bad := map[string]string{sidecars.SidecarsAnnotation: "nope"}
	good := map[string]string{sidecars.SidecarsAnnotation: "a"}
	withLabel := func(annotations map[string]string) *v1.Pod {
		p := pod(annotations)
		p.Labels = map[string]string{"new": "label"}
		return p
	}
	for _, tc := range []struct {
		name     string
		new, old *v1.Pod
		denied   bool
	}{
		{"a label changed, the malformed annotation kept", withLabel(bad), pod(bad), false},
		{"another annotation changed, the malformed one kept", pod(map[string]string{sidecars.SidecarsAnnotation: "nope", "x": "y"}), pod(bad), false},
		{"the annotation made malformed", pod(bad), pod(good), true},
		{"the annotation added, malformed", pod(bad), pod(nil), true},
		{"wait-ready added, malformed, the sidecars annotation kept", pod(map[string]string{sidecars.SidecarsAnnotation: "a", sidecars.WaitReadyAnnotation: "yes"}), pod(good), true},
		{"the annotation made valid", pod(good), pod(bad), false},
		{"the annotation removed", pod(nil), pod(bad), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := review(t, admission.Update, tc.new, tc.old)
			if got.err != "" || got.denied != tc.denied {
				t.Errorf("denied %v (%s), want denied %v; error %q", got.denied, got.message, tc.denied, got.err)
			}
		})
	}
	t.Run("mirror pod", func(t *testing.T) {
		mirror := pod(map[string]string{sidecars.SidecarsAnnotation: "nope", v1.MirrorPodAnnotationKey: "hash"})
		if got := review(t, admission.Create, mirror, nil); got.denied || got.err != "" {
			t.Errorf("a mirror pod was refused: %+v", got)
		}
	})
}

// TestBindingSkipsLabelledNamespaces: the binding applies the policy to
// every namespace but those labelled sidecar-kubelet.io/admission-policy=skip.
func TestBindingSkipsLabelledNamespaces(t *testing.T) {
	policy, binding := readPolicy(t)
	if binding.Spec.PolicyName != policy.Name {
		t.Errorf("the binding names policy %q, the file's is %q", binding.Spec.PolicyName, policy.Name)
	}
	if got := binding.Spec.ValidationActions; len(got) != 1 || got[0] != admissionregistrationv1.Deny {
		t.Errorf("validationActions %v, want [Deny]", got)
	}
	if binding.Spec.MatchResources == nil || binding.Spec.MatchResources.NamespaceSelector == nil {
		t.Fatal("the binding has no namespaceSelector")
	}
	selector, err := metav1.LabelSelectorAsSelector(binding.Spec.MatchResources.NamespaceSelector)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		labels  labels.Set
		matches bool
	}{
		{nil, true},
		{labels.Set{"sidecar-kubelet.io/admission-policy": "skip"}, false},
		{labels.Set{"sidecar-kubelet.io/admission-policy": "enforce"}, true},
		{labels.Set{"kubernetes.io/metadata.name": "kube-system"}, true},
	} {
		if got := selector.Matches(tc.labels); got != tc.matches {
			t.Errorf("namespace labels %v: matched %v, want %v", tc.labels, got, tc.matches)
		}
	}
}

// short shows annotations in a failure, each value cut to 100 bytes.
func short(annotations map[string]string) string {
	var parts []string
	for _, k := range []string{sidecars.SidecarsAnnotation, sidecars.WaitReadyAnnotation} {
		if v, ok := annotations[k]; ok {
			if len(v) > 100 {
				v = fmt.Sprintf("%s... (%d bytes)", v[:100], len(v))
			}
			parts = append(parts, fmt.Sprintf("%s=%q", k, v))
		}
	}
	return strings.Join(parts, " ")
}
