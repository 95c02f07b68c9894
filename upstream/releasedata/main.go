// Command releasedata prints the scheduling defaults of the k8s.io/kubernetes release it is
// compiled against, as one JSON document on stdout. generate.sh builds it once per release (a
// temporary module requiring k8s.io/kubernetes vX.Y.Z and its staging modules v0.Y.Z) and turns
// the document into reference_impl/releases/vX_Y_Z.py.
//
//	releasedata -src DIR   DIR: the k8s.io/kubernetes module directory of the same release
//
// Everything comes from the compiled release (the v1 scheme's defaulting, the feature gates, the
// framework's expansion of MultiPoint) except two facts that are unexported: the gates code under
// pkg/scheduler reads (read from DIR's Go files) and invalidPluginsByVersion (read from
// pkg/scheduler/apis/config/validation/validation.go, then checked against the compiled
// validation).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	configv1 "k8s.io/kube-scheduler/config/v1"
	_ "k8s.io/kubernetes/pkg/features" // registers the gates
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

const featuresPkg = "k8s.io/kubernetes/pkg/features"

type gate struct {
	Default       bool   `json:"default"`
	PreRelease    string `json:"preRelease"`
	LockToDefault bool   `json:"lockToDefault"`
}

type plugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

type output struct {
	Module                                string                    `json:"module"`
	Version                               string                    `json:"version"`
	Config                                json.RawMessage           `json:"config"`
	ExtensionPoints                       map[string][]plugin       `json:"extensionPoints"`
	ExtensionPointOrder                   []string                  `json:"extensionPointOrder"`
	PluginArgsDefaults                    map[string]map[string]any `json:"pluginArgsDefaults"`
	PluginArgsDefaultsAllGates            map[string]map[string]any `json:"pluginArgsDefaultsAllGates"`
	FeatureGates                          map[string]gate           `json:"featureGates"`
	PodMaxInUnschedulablePodsDurationSecs float64                   `json:"podMaxInUnschedulablePodsDurationSeconds"`
	MaxCustomPriorityScore                int64                     `json:"maxCustomPriorityScore"`
	InvalidPluginsByVersion               map[string][]string       `json:"invalidPluginsByVersion"`
	GatesReadBy                           map[string][]string       `json:"gatesReadBy"`
}

func main() {
	src := flag.String("src", "", "the k8s.io/kubernetes module directory of the linked release")
	flag.Parse()
	if *src == "" {
		fail(fmt.Errorf("-src is required"))
	}
	out, err := collect(*src)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "releasedata:", err)
	os.Exit(1)
}

func collect(src string) (*output, error) {
	out := &output{Module: "k8s.io/kubernetes", Version: linkedVersion()}
	readBy, err := gatesReadBy(filepath.Join(src, "pkg", "scheduler"), src)
	if err != nil {
		return nil, err
	}
	out.GatesReadBy = readBy
	if out.FeatureGates, err = gateDefaults(readBy); err != nil {
		return nil, err
	}
	// With the release's default gates: the config, the framework's plugins, the args.
	cfg := &configv1.KubeSchedulerConfiguration{}
	scheme.Scheme.Default(cfg)
	if out.Config, err = json.Marshal(cfg); err != nil {
		return nil, err
	}
	if out.ExtensionPoints, out.ExtensionPointOrder, err = extensionPoints(); err != nil {
		return nil, err
	}
	if out.PluginArgsDefaults, err = argsDefaults(); err != nil {
		return nil, err
	}
	out.PodMaxInUnschedulablePodsDurationSecs = queue.DefaultPodMaxInUnschedulablePodsDuration.Seconds()
	out.MaxCustomPriorityScore = config.MaxCustomPriorityScore
	if out.InvalidPluginsByVersion, err = invalidPlugins(src, cfg); err != nil {
		return nil, err
	}
	// Last (it changes the process' gates): the args with every settable scheduler gate on, i.e.
	// also the values SetDefaults_* fills in only behind a gate.
	on := map[string]bool{}
	for name, g := range out.FeatureGates {
		if !g.Default && !g.LockToDefault {
			on[name] = true
		}
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(on); err != nil {
		return nil, fmt.Errorf("enabling the scheduler gates: %w", err)
	}
	if out.PluginArgsDefaultsAllGates, err = argsDefaults(); err != nil {
		return nil, err
	}
	return out, nil
}

// linkedVersion is the k8s.io/kubernetes version this binary links.
func linkedVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// gatesReadBy maps every gate of pkg/features that a non-test Go file under dir names (as
// <import name>.<Gate>) to those files (relative to root).
func gatesReadBy(dir, root string) (map[string][]string, error) {
	found := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		local := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == featuresPkg {
				local = "features"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && !seen[sel.Sel.Name] {
				seen[sel.Sel.Name] = true
				found[sel.Sel.Name] = append(found[sel.Sel.Name], filepath.ToSlash(rel))
			}
			return true
		})
		return nil
	})
	for _, files := range found {
		sort.Strings(files)
	}
	return found, err
}

// gateDefaults is the default, stage and lock of each named gate at this release's emulation
// version; a name the gate registry does not know is an error.
func gateDefaults(names map[string][]string) (map[string]gate, error) {
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	gates := map[string]gate{}
	for name := range names {
		spec, ok := all[featuregate.Feature(name)]
		if !ok {
			return nil, fmt.Errorf("pkg/scheduler reads features.%s, which is not a registered gate", name)
		}
		stage := string(spec.PreRelease)
		if spec.PreRelease == featuregate.GA {
			stage = "GA" // the empty prerelease
		}
		gates[name] = gate{
			Default:       utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name)),
			PreRelease:    stage,
			LockToDefault: spec.LockToDefault,
		}
	}
	return gates, nil
}

// extensionPoints builds the default scheduler on a fake client and lists its profile's plugins
// per extension point (the framework's expansion of MultiPoint, Framework.ListPlugins).
func extensionPoints() (map[string][]plugin, []string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := fake.NewSimpleClientset()
	// (the broadcaster is never started: no events are recorded)
	recorders := profile.NewRecorderFactory(events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()}))
	sched, err := scheduler.New(ctx, cs, informers.NewSharedInformerFactory(cs, 0), nil, recorders)
	if err != nil {
		return nil, nil, fmt.Errorf("building the default scheduler: %w", err)
	}
	if len(sched.Profiles) != 1 {
		return nil, nil, fmt.Errorf("the default scheduler has %d profiles, want 1", len(sched.Profiles))
	}
	points := map[string][]plugin{}
	var order []string
	for _, fwk := range sched.Profiles {
		ps := reflect.ValueOf(fwk.ListPlugins()).Elem()
		for i := 0; i < ps.NumField(); i++ {
			set, ok := ps.Field(i).Interface().(config.PluginSet)
			if !ok {
				continue
			}
			name := ps.Type().Field(i).Name
			name = strings.ToLower(name[:1]) + name[1:]
			order = append(order, name)
			points[name] = []plugin{}
			for _, p := range set.Enabled {
				points[name] = append(points[name], plugin{Name: p.Name, Weight: p.Weight})
			}
		}
	}
	return points, order, nil
}

// argsDefaults defaults an empty object of every v1 args kind the config scheme registers and
// keeps the fields defaulting set (the v1 JSON keys whose value differs from the empty object's).
func argsDefaults() (map[string]map[string]any, error) {
	defaults := map[string]map[string]any{}
	for kind := range scheme.Scheme.KnownTypes(configv1.SchemeGroupVersion) {
		if !strings.HasSuffix(kind, "Args") {
			continue
		}
		obj, err := scheme.Scheme.New(configv1.SchemeGroupVersion.WithKind(kind))
		if err != nil {
			return nil, err
		}
		before, err := jsonMap(obj)
		if err != nil {
			return nil, err
		}
		scheme.Scheme.Default(obj)
		after, err := jsonMap(obj)
		if err != nil {
			return nil, err
		}
		set := map[string]any{}
		for k, v := range after {
			if b, ok := before[k]; !ok || !reflect.DeepEqual(b, v) {
				set[k] = v
			}
		}
		defaults[kind] = set
	}
	return defaults, nil
}

func jsonMap(obj runtime.Object) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	err = json.Unmarshal(raw, &m)
	delete(m, "kind")
	delete(m, "apiVersion")
	return m, err
}

// invalidPlugins reads invalidPluginsByVersion from validation.go and checks each name against
// the compiled validation: enabling it in the default profile must be rejected as invalid.
func invalidPlugins(src string, v1cfg *configv1.KubeSchedulerConfiguration) (map[string][]string, error) {
	path := filepath.Join(src, "pkg", "scheduler", "apis", "config", "validation", "validation.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	byVersion := map[string][]string{}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "invalidPluginsByVersion" || len(vs.Values) != 1 {
			return true
		}
		found = true
		for _, elt := range vs.Values[0].(*ast.CompositeLit).Elts {
			version, names := "", []string{}
			for _, kv := range elt.(*ast.CompositeLit).Elts {
				kv := kv.(*ast.KeyValueExpr)
				switch kv.Key.(*ast.Ident).Name {
				case "schemeGroupVersion":
					// v1.SchemeGroupVersion.String(): the package name of the selector.
					sel := kv.Value.(*ast.CallExpr).Fun.(*ast.SelectorExpr).X.(*ast.SelectorExpr)
					version = sel.X.(*ast.Ident).Name
				case "plugins":
					for _, s := range kv.Value.(*ast.CompositeLit).Elts {
						name, _ := strconv.Unquote(s.(*ast.BasicLit).Value)
						names = append(names, name)
					}
				}
			}
			byVersion[version] = names
		}
		return false
	})
	if !found {
		return nil, fmt.Errorf("%s: no invalidPluginsByVersion", path)
	}
	for _, name := range byVersion["v1"] {
		internal := &config.KubeSchedulerConfiguration{}
		if err := scheme.Scheme.Convert(v1cfg, internal, nil); err != nil {
			return nil, err
		}
		if errs := validation.ValidateKubeSchedulerConfiguration(internal); errs != nil {
			return nil, fmt.Errorf("the default configuration does not validate: %w", errs)
		}
		internal.Profiles[0].Plugins.Score.Enabled = append(internal.Profiles[0].Plugins.Score.Enabled, config.Plugin{Name: name})
		errs := validation.ValidateKubeSchedulerConfiguration(internal)
		if errs == nil || !strings.Contains(errs.Error(), name) || !strings.Contains(errs.Error(), "was invalid in version") {
			return nil, fmt.Errorf("validation.go lists %s as invalid, but the validation accepts it (%v)", name, errs)
		}
	}
	return byVersion, nil
}
