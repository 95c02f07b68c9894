// Command kschedconf-upstream runs the real kube-scheduler (k8s.io/kubernetes/pkg/scheduler, the
// release pinned in reference_impl/releases/pinned.py, or another one: build.sh --release) in
// process against a fake API server and prints the same documents as the Python tool: a
// SimulationResult (mode simulate) or an Explanation (mode explain). Mode serve answers
// JSON-line requests on stdin.
//
// Usage:
//
//	kschedconf-upstream simulate CLUSTER.yaml... [--config CFG.yaml] [--seed N] [--output RESULT.json]
//	kschedconf-upstream explain CLUSTER.yaml... (--pod POD.yaml | --pod-name NS/NAME) [--config CFG.yaml]
//	kschedconf-upstream serve
//	kschedconf-upstream version | features
//
// simulate speaks the external-subject file protocol (docs/subjects.md):
// `kschedconf-upstream simulate SCENARIO.yaml --output RESULT.json --seed N`.
//
// Exit codes: 0 ok (simulate: also with pods left pending, unless --fail-on-pending); 1 a pod
// stayed pending (--fail-on-pending) or does not fit (explain); 2 usage, input or subject error.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

// upstreamRelease is the k8s.io/kubernetes version linked into this binary.
var upstreamRelease = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}()

const usage = `usage:
  kschedconf-upstream simulate CLUSTER.yaml... [--config CFG.yaml] [--seed N] [--output RESULT.json]
                      [--until DURATION] [--single-pass] [--max-attempts-per-pod N (0: no limit)] [--timeout 60s]
                      [--settle-timeout 10s] [--notes] [--no-preemption-notes] [--fail-on-pending]
                      [--parallelism N (the scheduler's Filter/Score workers; default 1)]
  kschedconf-upstream explain CLUSTER.yaml... (--pod POD.yaml | --pod-name NS/NAME)
                      [--config CFG.yaml] [--output EXPLANATION.json]
  kschedconf-upstream serve          JSON lines on stdin -> one JSON line per request on stdout
  kschedconf-upstream version        the linked k8s.io/kubernetes version
  kschedconf-upstream features       the feature gates (name=value, one a line)
global: --v N (klog verbosity, logs go to stderr)
`

type cliArgs struct {
	files       []string
	config      string
	pod         string
	podName     string
	seed        int64
	singlePass  bool
	maxAttempts int
	timeout     time.Duration
	settle      time.Duration
	noPreNotes  bool
	notes       bool
	failPending bool
	output      string
	until       *time.Duration
	verbosity   string
	parallelism int
}

func parseArgs(args []string) (*cliArgs, error) {
	a := &cliArgs{maxAttempts: 0, timeout: 60 * time.Second, settle: 10 * time.Second, verbosity: "0", parallelism: 1}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "-o" { // -o json: the Python CLI's format flag; JSON is the only format
			if i+1 >= len(args) || args[i+1] != "json" {
				return nil, fmt.Errorf("-o: only json output is supported")
			}
			i++
			continue
		}
		if !strings.HasPrefix(arg, "--") || arg == "-" {
			a.files = append(a.files, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("--%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		var s string
		switch name {
		case "single-pass":
			a.singlePass = true
		case "no-preemption-notes":
			a.noPreNotes = true
		case "notes":
			a.notes = true
		case "fail-on-pending":
			a.failPending = true
		case "config", "pod", "pod-name", "seed", "max-attempts-per-pod", "timeout", "settle-timeout", "v", "output", "format", "until", "parallelism":
			if s, err = value(); err != nil {
				return nil, err
			}
			switch name {
			case "config":
				a.config = s
			case "pod":
				a.pod = s
			case "pod-name":
				a.podName = s
			case "seed":
				a.seed, err = strconv.ParseInt(s, 10, 64)
			case "max-attempts-per-pod":
				a.maxAttempts, err = strconv.Atoi(s)
			case "parallelism":
				if a.parallelism, err = strconv.Atoi(s); err == nil && a.parallelism < 1 {
					err = fmt.Errorf("must be at least 1")
				}
			case "timeout":
				a.timeout, err = time.ParseDuration(s)
			case "settle-timeout":
				a.settle, err = time.ParseDuration(s)
			case "v":
				a.verbosity = s
			case "output":
				a.output = s
			case "until":
				var d time.Duration
				if d, err = parseDuration(s); err == nil {
					a.until = &d
				}
			case "format":
				if s != "json" {
					err = fmt.Errorf("only json output is supported")
				}
			}
			if err != nil {
				return nil, fmt.Errorf("--%s: %v", name, err)
			}
		default:
			return nil, fmt.Errorf("unknown flag --%s", name)
		}
	}
	return a, nil
}

func initKlog(v string) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", v)
	_ = fs.Set("logtostderr", "true")
}

func writeJSON(out io.Writer, doc interface{}, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := out.Write(buf.Bytes())
	return err
}

// emit writes the document to the --output file, or to stdout.
func emit(path string, doc interface{}) error {
	if path == "" || path == "-" {
		return writeJSON(os.Stdout, doc, true)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeJSON(f, doc, true); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fail(code int, format string, args ...interface{}) int {
	fmt.Fprintf(os.Stderr, "kschedconf-upstream: "+format+"\n", args...)
	return code
}

func main() { os.Exit(run(os.Args[1:])) }

func run(argv []string) int {
	if len(argv) == 0 || argv[0] == "-h" || argv[0] == "--help" || argv[0] == "help" {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	mode := argv[0]
	a, err := parseArgs(argv[1:])
	if err != nil {
		return fail(2, "%s: %v\n%s", mode, err, usage)
	}
	initKlog(a.verbosity)
	switch mode {
	case "version":
		fmt.Println(upstreamRelease)
		return 0
	case "features":
		printFeatures()
		return 0
	case "serve":
		return serve(os.Stdin, os.Stdout)
	case "simulate", "explain":
	default:
		return fail(2, "unknown mode %q\n%s", mode, usage)
	}
	if len(a.files) == 0 {
		return fail(2, "%s: no cluster given: pass manifest files", mode)
	}
	objs, err := readPaths(a.files)
	if err != nil {
		return fail(2, "%s: %v", mode, err)
	}
	cl, err := buildCluster(objs)
	if err != nil {
		return fail(2, "%s: %v", mode, err)
	}
	for _, w := range cl.Warnings {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
	cfgData := cl.Config
	if a.config != "" {
		if cfgData, err = os.ReadFile(a.config); err != nil {
			return fail(2, "%s: --config: %v", mode, err)
		}
	}
	cfg, err := loadConfig(cfgData)
	if err != nil {
		return fail(2, "%s: %v", mode, err)
	}
	if mode == "simulate" {
		res, err := simulate(cl, cfg, simOptions{seed: a.seed, until: a.until, singlePass: a.singlePass, maxAttemptsPerPod: a.maxAttempts,
			timeout: a.timeout, settleTimeout: a.settle, preemptionNotes: !a.noPreNotes, parallelism: a.parallelism})
		if err != nil {
			return fail(2, "simulate: %v", err)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(os.Stderr, "note: %s\n", n)
		}
		if !a.notes {
			res.Notes = nil
		}
		if err := emit(a.output, res); err != nil {
			return fail(2, "simulate: %v", err)
		}
		if a.failPending && len(res.Pending) > 0 {
			return 1
		}
		return 0
	}
	if (a.pod == "") == (a.podName == "") {
		return fail(2, "explain: give exactly one of --pod POD.yaml or --pod-name NS/NAME")
	}
	var target *v1.Pod
	if a.pod != "" {
		pobjs, err := readPaths([]string{a.pod})
		if err != nil {
			return fail(2, "explain: --pod: %v", err)
		}
		if target, err = podFromObjects(pobjs, cl); err != nil {
			return fail(2, "explain: %s: %v", a.pod, err)
		}
	} else if target, err = podByName(cl, a.podName); err != nil {
		return fail(2, "explain: --pod-name: %v", err)
	}
	e, err := explainPod(cl, cfg, target, a.settle)
	if err != nil {
		return fail(2, "explain: %v", err)
	}
	if err := emit(a.output, e); err != nil {
		return fail(2, "explain: %v", err)
	}
	if e.Selected == nil {
		return 1
	}
	return 0
}

// podFromObjects admits the single Pod of a --pod file against the cluster's priority classes.
func podFromObjects(objs []rawObject, cl *Cluster) (*v1.Pod, error) {
	if len(objs) != 1 || objs[0].kind != "Pod" {
		var kinds []string
		for _, o := range objs {
			kinds = append(kinds, o.kind)
		}
		return nil, fmt.Errorf("expected exactly one Pod, found [%s]", strings.Join(kinds, ", "))
	}
	p := &v1.Pod{}
	if err := decodeTyped(objs[0], p); err != nil {
		return nil, err
	}
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if err := admitPod(p, cl.PriorityClasses); err != nil {
		return nil, err
	}
	if p.Spec.NodeName != "" {
		return nil, fmt.Errorf("pod %s already has spec.nodeName %q; explain takes a pending pod", podKey(p), p.Spec.NodeName)
	}
	return p, nil
}

func podByName(cl *Cluster, key string) (*v1.Pod, error) {
	for _, p := range cl.Pods {
		if podKey(p) == key {
			if p.Spec.NodeName != "" {
				return nil, fmt.Errorf("%s is already bound to %s", key, p.Spec.NodeName)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("no pod %q in the cluster", key)
}

func printFeatures() {
	names := []string{}
	for n := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("%s=%v\n", n, utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(n)))
	}
}

// ----- serve -----

type serveRequest struct {
	Mode              string            `json:"mode"`
	Documents         []json.RawMessage `json:"documents"`
	Config            json.RawMessage   `json:"config"`
	Pod               json.RawMessage   `json:"pod"`
	Pods              []json.RawMessage `json:"pods"`
	Seed              int64             `json:"seed"`
	SinglePass        bool              `json:"singlePass"`
	MaxAttemptsPerPod int               `json:"maxAttemptsPerPod"`
	Notes             bool              `json:"notes"`
}

// serveGCPercent is serve's garbage-collector target (GOGC) unless the environment sets one:
// every request builds a world (informers, a scheduler, their caches) that is garbage at its
// end, and at the default 100 the collector was a third of the CPU of a serve process answering
// the differential's small requests; at 400, 30 % less CPU for about 30 MB more at peak.
const serveGCPercent = 400

// cpuProfileEnv names a file for a CPU profile of the whole serve process (runtime/pprof;
// `go tool pprof` reads it): bench/diff_throughput.py's notes replay a run's requests so.
const cpuProfileEnv = "KSCHEDCONF_UPSTREAM_CPUPROFILE"

func serve(in io.Reader, out io.Writer) int {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if path := os.Getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return fail(2, "serve: %s: %v", cpuProfileEnv, err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(2, "serve: %s: %v", cpuProfileEnv, err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	bw := bufio.NewWriter(out)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		doc, err := handleRequest(line)
		if err != nil {
			doc = map[string]string{"error": err.Error()}
		}
		if err := writeJSON(bw, doc, false); err != nil {
			return fail(2, "serve: %v", err)
		}
		if err := bw.Flush(); err != nil {
			return fail(2, "serve: %v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fail(2, "serve: %v", err)
	}
	return 0
}

func handleRequest(line []byte) (interface{}, error) {
	var req serveRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("bad request: %v", err)
	}
	var objs []rawObject
	for i, d := range req.Documents {
		var m interface{}
		if err := json.Unmarshal(d, &m); err != nil {
			return nil, fmt.Errorf("documents[%d]: %v", i, err)
		}
		o, err := expandDocument(m, fmt.Sprintf("documents[%d]", i))
		if err != nil {
			return nil, err
		}
		objs = append(objs, o...)
	}
	cl, err := buildCluster(objs)
	if err != nil {
		return nil, err
	}
	cfgData := cl.Config
	if len(req.Config) > 0 && string(req.Config) != "null" {
		cfgData = req.Config
	}
	cfg, err := loadConfig(cfgData)
	if err != nil {
		return nil, err
	}
	switch req.Mode {
	case "simulate":
		maxAttempts := req.MaxAttemptsPerPod
		res, err := simulate(cl, cfg, simOptions{seed: req.Seed, singlePass: req.SinglePass, maxAttemptsPerPod: maxAttempts,
			timeout: 60 * time.Second, settleTimeout: 10 * time.Second, preemptionNotes: true})
		if err == nil && !req.Notes {
			res.Notes = nil
		}
		if err == nil && req.Notes {
			res.Warnings = cl.Warnings
		}
		return res, err
	case "explain":
		return serveExplain(&req, cl, cfg) // explain_batch.go
	}
	return nil, fmt.Errorf("unknown mode %q (simulate or explain)", req.Mode)
}

// requestPod is the pod of an explain request: "ns/name" of a pending pod, or a Pod object.
func requestPod(raw json.RawMessage, cl *Cluster) (*v1.Pod, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("explain needs \"pod\": \"ns/name\" or a Pod object")
	}
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return podByName(cl, name)
	}
	var m interface{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("pod: %v", err)
	}
	objs, err := expandDocument(m, "pod")
	if err != nil {
		return nil, err
	}
	return podFromObjects(objs, cl)
}
