package main

// Reading Kubernetes manifests into the objects the API server would store.
//
// The inputs are the same as the Python tool's (reference_impl/model/loader.py): files with one
// or more YAML documents or JSON, each an object, a `kind: List` or a typed list; kinds Node,
// Pod, Namespace, PriorityClass, PodDisruptionBudget, Service, ReplicationController, ReplicaSet,
// StatefulSet (what helper.DefaultSelector reads), the resource.k8s.io/v1 DeviceClass,
// ResourceSlice, ResourceClaim and ResourceClaimTemplate (dra.go), PersistentVolume,
// PersistentVolumeClaim and the storage.k8s.io/v1 StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity and VolumeAttachment (storage.go) and KubeSchedulerConfiguration. Everything
// the API server does on create that matters for scheduling is done by upstream's own code:
// v1 defaulting (legacyscheme, pkg/apis/*/v1/defaults.go) and the pod create strategy
// (pkg/registry/core/pod/strategy.go PrepareForCreate: matchLabelKeys merging, pod-level
// resource defaulting). The Priority admission plugin is restated (it needs a running admission
// chain): the loader's rules, an explicit spec.priority is kept.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/google/uuid"
	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	podstrategy "k8s.io/kubernetes/pkg/registry/core/pod"
)

const (
	scenarioAPIVersion = "kschedconf/v1"
	schedConfigGroup   = "kubescheduler.config.k8s.io"
	// systemCriticalPriority is pkg/apis/scheduling SystemCriticalPriority.
	systemCriticalPriority = 2 * 1000000000
)

// uidNamespace is the UUID namespace of the deterministic UIDs the Python loader gives objects
// without metadata.uid (uuid5 of "Kind/namespace/name"): both sides use the same UIDs.
var uidNamespace = uuid.MustParse("6f1c2b8e-1d7a-4c55-9a61-3a0f6d3e6b10")

// Cluster is everything read from the inputs, in input order.
type Cluster struct {
	Nodes           []*v1.Node
	Pods            []*v1.Pod // non-terminal pods, input order
	Namespaces      []*v1.Namespace
	PriorityClasses []*schedulingv1.PriorityClass
	PDBs            []*policyv1.PodDisruptionBudget
	// the objects helper.DefaultSelector lists (PodTopologySpread's system default constraints)
	Services     []*v1.Service
	RCs          []*v1.ReplicationController
	ReplicaSets  []*appsv1.ReplicaSet
	StatefulSets []*appsv1.StatefulSet
	DRA          draObjects     // resource.k8s.io/v1 objects (dra.go)
	Storage      storageObjects // PVs, PVCs and storage.k8s.io/v1 objects (storage.go)
	Config       []byte         // a KubeSchedulerConfiguration document (JSON), if any
	Timeline     *timeline      // a kschedconf/v1 Scenario's timeline, if any
	Warnings     []string
}

type rawObject struct {
	kind, apiVersion string
	doc              map[string]interface{}
	where            string
}

// readPaths reads manifest files ("-" is stdin; a directory means its *.yaml/*.yml/*.json).
func readPaths(paths []string) ([]rawObject, error) {
	var out []rawObject
	for _, p := range paths {
		files := []string{p}
		if p != "-" {
			st, err := os.Stat(p)
			if err != nil {
				return nil, err
			}
			if st.IsDir() {
				files = nil
				entries, err := os.ReadDir(p)
				if err != nil {
					return nil, err
				}
				for _, e := range entries {
					ext := strings.ToLower(filepath.Ext(e.Name()))
					if !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
						files = append(files, filepath.Join(p, e.Name()))
					}
				}
				sort.Strings(files)
			}
		}
		for _, f := range files {
			var data []byte
			var err error
			if f == "-" {
				data, err = io.ReadAll(os.Stdin)
			} else {
				data, err = os.ReadFile(f)
			}
			if err != nil {
				return nil, err
			}
			docs, err := splitDocuments(data, f)
			if err != nil {
				return nil, err
			}
			for i, d := range docs {
				objs, err := expandDocument(d, fmt.Sprintf("%s, document %d", f, i+1))
				if err != nil {
					return nil, err
				}
				out = append(out, objs...)
			}
		}
	}
	return out, nil
}

// splitDocuments parses a YAML stream (or JSON, a subset of YAML 1.2) into documents. YAML 1.2
// scalars are used (go.yaml.in/yaml/v3): "y", "n", "on", "off" stay strings, as the Python
// loader (PyYAML) reads the scenario files the harness writes; kubectl's YAML 1.1 reader would
// turn an unquoted `name: y` into a boolean.
func splitDocuments(data []byte, source string) ([]interface{}, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []interface{}
	for i := 1; ; i++ {
		var d interface{}
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s, document %d: %v", source, i, err)
		}
		if d == nil {
			continue
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// expandDocument turns one parsed document into objects (a List gives its items).
func expandDocument(d interface{}, where string) ([]rawObject, error) {
	m, ok := d.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: expected a mapping (a Kubernetes object), got %T", where, d)
	}
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	if apiVersion == scenarioAPIVersion {
		return []rawObject{{kind: kind, apiVersion: apiVersion, doc: m, where: where}}, nil
	}
	if _, hasItems := m["items"]; kind == "List" || (strings.HasSuffix(kind, "List") && hasItems) {
		items, _ := m["items"].([]interface{})
		itemKind := ""
		if kind != "List" {
			itemKind = strings.TrimSuffix(kind, "List")
		}
		var out []rawObject
		for i, it := range items {
			im, ok := it.(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("%s, items[%d]: expected a mapping, got %T", where, i, it)
			}
			k, _ := im["kind"].(string)
			if k == "" {
				k = itemKind
				im["kind"] = k
			}
			av, _ := im["apiVersion"].(string)
			if av == "" {
				av = defaultAPIVersion(k)
				im["apiVersion"] = av
			}
			out = append(out, rawObject{kind: k, apiVersion: av, doc: im, where: fmt.Sprintf("%s, items[%d]", where, i)})
		}
		return out, nil
	}
	if apiVersion == "" {
		apiVersion = defaultAPIVersion(kind)
		m["apiVersion"] = apiVersion
	}
	return []rawObject{{kind: kind, apiVersion: apiVersion, doc: m, where: where}}, nil
}

func defaultAPIVersion(kind string) string {
	switch kind {
	case "Node", "Pod", "Namespace":
		return "v1"
	case "PriorityClass":
		return "scheduling.k8s.io/v1"
	case "PodDisruptionBudget":
		return "policy/v1"
	case "Service", "ReplicationController":
		return "v1"
	case "ReplicaSet", "StatefulSet":
		return "apps/v1"
	case "KubeSchedulerConfiguration":
		return schedConfigGroup + "/v1"
	case "PersistentVolume", "PersistentVolumeClaim":
		return "v1"
	case "StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity", "VolumeAttachment":
		return storageGroup + "/v1"
	}
	return ""
}

func group(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func decodeTyped(o rawObject, into runtime.Object) error {
	data, err := json.Marshal(o.doc)
	if err != nil {
		return fmt.Errorf("%s: %v", o.where, err)
	}
	return decoded.decode(data, into, o.where)
}

// decoded is serve's memo of decodeTyped: the differential asks the same objects again and
// again (a scenario's simulate, then every lockstep state of it), and decoding was about a tenth
// of serve's CPU.
var decoded = &decodeMemo{objs: map[decodeKey]runtime.Object{}}

// decodeMemoSize bounds decodeMemo: it is emptied when full.
const decodeMemoSize = 4096

type decodeKey struct {
	typ  reflect.Type
	data string
}

// decodeMemo maps the JSON of an object and the type it is decoded into to the decoded object
// (a pure function of the two: the scheme's deserializer into a new object); each use gets a
// deep copy of it, which the caller may change (admission, defaulting).
type decodeMemo struct {
	mu   sync.Mutex
	objs map[decodeKey]runtime.Object
}

// decode decodes data into into, a new (zero) object, as UniversalDeserializer does.
func (m *decodeMemo) decode(data []byte, into runtime.Object, where string) error {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() || !v.Elem().IsZero() {
		// not a new object: the decoder merges into what is there; not memoized
		if _, _, err := clientgoscheme.Codecs.UniversalDeserializer().Decode(data, nil, into); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		return nil
	}
	key := decodeKey{typ: v.Type(), data: string(data)}
	m.mu.Lock()
	obj, ok := m.objs[key]
	m.mu.Unlock()
	if !ok {
		if _, _, err := clientgoscheme.Codecs.UniversalDeserializer().Decode(data, nil, into); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		m.mu.Lock()
		if len(m.objs) >= decodeMemoSize {
			clear(m.objs)
		}
		m.objs[key] = into.DeepCopyObject()
		m.mu.Unlock()
		return nil
	}
	v.Elem().Set(reflect.ValueOf(obj.DeepCopyObject()).Elem())
	return nil
}

// buildCluster converts the raw objects, applying the API server's create-time behaviour.
func buildCluster(objs []rawObject) (*Cluster, error) {
	c := &Cluster{}
	seen := map[string]string{}
	ignored := map[string]int{}
	var ignoredOrder []string
	var pods []*v1.Pod
	var scenario *rawObject
	terminal := 0
	ignoreKind := func(o rawObject) {
		k := fmt.Sprintf("%s (%s)", o.kind, o.apiVersion)
		if ignored[k] == 0 {
			ignoredOrder = append(ignoredOrder, k)
		}
		ignored[k]++
	}
	for _, o := range objs {
		g := group(o.apiVersion)
		var key string
		switch {
		case o.apiVersion == scenarioAPIVersion:
			if o.kind != "Scenario" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: ignored a %s %s", o.where, o.apiVersion, o.kind))
				continue
			}
			if scenario != nil {
				return nil, fmt.Errorf("%s: a second %s Scenario; expected at most one", o.where, scenarioAPIVersion)
			}
			sc := o
			scenario = &sc
			continue
		case o.kind == "KubeSchedulerConfiguration" && g == schedConfigGroup:
			if c.Config != nil {
				return nil, fmt.Errorf("%s: a second KubeSchedulerConfiguration; expected at most one", o.where)
			}
			data, err := json.Marshal(o.doc)
			if err != nil {
				return nil, err
			}
			c.Config = data
			continue
		case o.kind == "Node" && o.apiVersion == "v1":
			n := &v1.Node{}
			if err := decodeTyped(o, n); err != nil {
				return nil, err
			}
			key = "Node " + n.Name
			if n.UID == "" {
				n.UID = deterministicUID("Node", "", n.Name)
			}
			legacyscheme.Scheme.Default(n)
			c.Nodes = append(c.Nodes, n)
		case o.kind == "Pod" && o.apiVersion == "v1":
			p := &v1.Pod{}
			if err := decodeTyped(o, p); err != nil {
				return nil, err
			}
			if p.Namespace == "" {
				p.Namespace = metav1.NamespaceDefault
			}
			key = "Pod " + p.Namespace + "/" + p.Name
			if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
				terminal++
				break
			}
			pods = append(pods, p)
		case o.kind == "Namespace" && o.apiVersion == "v1":
			ns := &v1.Namespace{}
			if err := decodeTyped(o, ns); err != nil {
				return nil, err
			}
			key = "Namespace " + ns.Name
			if ns.UID == "" {
				ns.UID = deterministicUID("Namespace", "", ns.Name)
			}
			legacyscheme.Scheme.Default(ns)
			c.Namespaces = append(c.Namespaces, ns)
		case o.kind == "PriorityClass" && g == "scheduling.k8s.io":
			pc := &schedulingv1.PriorityClass{}
			if err := decodeTyped(o, pc); err != nil {
				return nil, err
			}
			key = "PriorityClass " + pc.Name
			legacyscheme.Scheme.Default(pc)
			c.PriorityClasses = append(c.PriorityClasses, pc)
		case o.kind == "PodDisruptionBudget" && g == "policy":
			pdb := &policyv1.PodDisruptionBudget{}
			if err := decodeTyped(o, pdb); err != nil {
				return nil, err
			}
			if pdb.Namespace == "" {
				pdb.Namespace = metav1.NamespaceDefault
			}
			if pdb.UID == "" {
				pdb.UID = deterministicUID("PodDisruptionBudget", pdb.Namespace, pdb.Name)
			}
			key = "PodDisruptionBudget " + pdb.Namespace + "/" + pdb.Name
			legacyscheme.Scheme.Default(pdb)
			c.PDBs = append(c.PDBs, pdb)
		case o.kind == "Service" && o.apiVersion == "v1":
			svc := &v1.Service{}
			if err := decodeTyped(o, svc); err != nil {
				return nil, err
			}
			key = "Service " + defaultMeta(&svc.ObjectMeta, "Service")
			c.Services = append(c.Services, svc)
		case o.kind == "ReplicationController" && o.apiVersion == "v1":
			rc := &v1.ReplicationController{}
			if err := decodeTyped(o, rc); err != nil {
				return nil, err
			}
			key = "ReplicationController " + defaultMeta(&rc.ObjectMeta, "ReplicationController")
			legacyscheme.Scheme.Default(rc) // SetDefaults_ReplicationController: selector from the template
			c.RCs = append(c.RCs, rc)
		case o.kind == "ReplicaSet" && o.apiVersion == "apps/v1":
			rs := &appsv1.ReplicaSet{}
			if err := decodeTyped(o, rs); err != nil {
				return nil, err
			}
			key = "ReplicaSet " + defaultMeta(&rs.ObjectMeta, "ReplicaSet")
			legacyscheme.Scheme.Default(rs)
			c.ReplicaSets = append(c.ReplicaSets, rs)
		case o.kind == "StatefulSet" && o.apiVersion == "apps/v1":
			ss := &appsv1.StatefulSet{}
			if err := decodeTyped(o, ss); err != nil {
				return nil, err
			}
			key = "StatefulSet " + defaultMeta(&ss.ObjectMeta, "StatefulSet")
			legacyscheme.Scheme.Default(ss)
			c.StatefulSets = append(c.StatefulSets, ss)
		case (g == "" && (o.kind == "PersistentVolume" || o.kind == "PersistentVolumeClaim")) || g == storageGroup:
			k, handled, err := decodeStorage(o, c)
			if err != nil {
				return nil, err
			}
			if !handled {
				ignoreKind(o)
				continue
			}
			key = k
		case g == resourceGroup:
			k, handled, err := decodeDRA(o, c)
			if err != nil {
				return nil, err
			}
			if !handled {
				ignoreKind(o)
				continue
			}
			key = k
		default:
			ignoreKind(o)
			continue
		}
		if key != "" {
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%s: duplicate object: %s was already defined in %s", o.where, key, prev)
			}
			seen[key] = o.where
		}
	}
	if terminal > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("ignored %d pod(s) in phase Succeeded/Failed (the scheduler does not see terminal pods)", terminal))
	}
	for _, k := range ignoredOrder {
		c.Warnings = append(c.Warnings, fmt.Sprintf("ignored %d object(s) of kind %s", ignored[k], k))
	}

	known := map[string]bool{}
	for _, pc := range c.PriorityClasses {
		known[pc.Name] = true
	}
	nsKnown := map[string]bool{}
	for _, ns := range c.Namespaces {
		nsKnown[ns.Name] = true
	}
	nodeKnown := map[string]bool{}
	for _, n := range c.Nodes {
		nodeKnown[n.Name] = true
	}
	uids := map[types.UID]string{}
	for _, p := range pods {
		if err := admitPod(p, c.PriorityClasses); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %v", p.Namespace, p.Name, err)
		}
		if p.Spec.NodeName != "" && !nodeKnown[p.Spec.NodeName] {
			c.Warnings = append(c.Warnings, fmt.Sprintf("pod %s/%s is bound to node %q, which is not among the input nodes", p.Namespace, p.Name, p.Spec.NodeName))
		}
		if prev, dup := uids[p.UID]; dup {
			return nil, fmt.Errorf("pod %s/%s: duplicate uid %q (also used by %s)", p.Namespace, p.Name, p.UID, prev)
		}
		uids[p.UID] = p.Namespace + "/" + p.Name
		c.Pods = append(c.Pods, p)
		if pc, ok := systemPriorityClass(p.Spec.PriorityClassName); ok && !known[pc.Name] {
			known[pc.Name] = true
			c.PriorityClasses = append(c.PriorityClasses, pc)
		}
		if !nsKnown[p.Namespace] {
			nsKnown[p.Namespace] = true
			ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace, UID: deterministicUID("Namespace", "", p.Namespace)}}
			legacyscheme.Scheme.Default(ns)
			c.Namespaces = append(c.Namespaces, ns)
		}
	}
	for _, name := range append(c.DRA.namespaces(), c.Storage.namespaces()...) {
		if !nsKnown[name] {
			nsKnown[name] = true
			ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: deterministicUID("Namespace", "", name)}}
			legacyscheme.Scheme.Default(ns)
			c.Namespaces = append(c.Namespaces, ns)
		}
	}
	if scenario != nil {
		tl, err := parseTimeline(*scenario, c)
		if err != nil {
			return nil, err
		}
		c.Timeline = tl
	}
	return c, nil
}

// defaultMeta gives a namespaced object the default namespace and the deterministic UID the
// Python loader gives it, and returns "namespace/name".
func defaultMeta(m *metav1.ObjectMeta, kind string) string {
	if m.Namespace == "" {
		m.Namespace = metav1.NamespaceDefault
	}
	if m.UID == "" {
		m.UID = deterministicUID(kind, m.Namespace, m.Name)
	}
	return m.Namespace + "/" + m.Name
}

func deterministicUID(kind, namespace, name string) types.UID {
	return types.UID(uuid.NewSHA1(uidNamespace, []byte(kind+"/"+namespace+"/"+name)).String())
}

func systemPriorityClass(name string) (*schedulingv1.PriorityClass, bool) {
	var value int32
	switch name {
	case "system-node-critical":
		value = systemCriticalPriority + 1000
	case "system-cluster-critical":
		value = systemCriticalPriority
	default:
		return nil, false
	}
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
	legacyscheme.Scheme.Default(pc)
	return pc, true
}

// admitPod applies what the API server does when the pod is created: v1 defaulting, the
// priority admission (restated: the class named by the pod, or the global default class with
// the lowest value, else 0; an explicit spec.priority is kept as in a dump of admitted pods) and
// the pod strategy's PrepareForCreate (upstream code). The given status (nodeName'd pods,
// nominatedNodeName, startTime, conditions) is kept.
func admitPod(p *v1.Pod, classes []*schedulingv1.PriorityClass) error {
	if p.UID == "" {
		p.UID = deterministicUID("Pod", p.Namespace, p.Name)
	}
	legacyscheme.Scheme.Default(p)

	var pc *schedulingv1.PriorityClass
	if name := p.Spec.PriorityClassName; name != "" {
		for _, c := range classes {
			if c.Name == name {
				pc = c
			}
		}
		if pc == nil {
			pc, _ = systemPriorityClass(name)
		}
		if pc == nil && p.Spec.Priority == nil {
			return fmt.Errorf("no PriorityClass with name %q was found", name)
		}
	} else {
		// admission/priority: a pod without a class name gets the global default class, also
		// when it gives spec.priority (admission only checks that the two agree).
		for _, c := range classes {
			if c.GlobalDefault && (pc == nil || pc.Value > c.Value) {
				pc = c
			}
		}
		if pc != nil {
			p.Spec.PriorityClassName = pc.Name
		}
	}
	if p.Spec.Priority == nil {
		var v int32
		if pc != nil {
			v = pc.Value
		}
		p.Spec.Priority = &v
	}
	if p.Spec.PreemptionPolicy == nil {
		policy := v1.PreemptLowerPriority
		if pc != nil && pc.PreemptionPolicy != nil {
			policy = *pc.PreemptionPolicy
		}
		p.Spec.PreemptionPolicy = &policy
	}

	given := p.Status.DeepCopy()
	internal := &api.Pod{}
	if err := legacyscheme.Scheme.Convert(p, internal, nil); err != nil {
		return err
	}
	podstrategy.Strategy.PrepareForCreate(context.Background(), internal)
	out := &v1.Pod{}
	if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
		return err
	}
	prepared := out.Status
	status := *given
	if status.Phase == "" {
		status.Phase = prepared.Phase
	}
	if status.QOSClass == "" {
		status.QOSClass = prepared.QOSClass
	}
	for _, pc := range prepared.Conditions {
		found := false
		for _, gc := range status.Conditions {
			if gc.Type == pc.Type {
				found = true
			}
		}
		if !found {
			status.Conditions = append(status.Conditions, pc)
		}
	}
	out.Status = status
	out.TypeMeta = p.TypeMeta
	*p = *out
	return nil
}

// podKey is "namespace/name".
func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }
