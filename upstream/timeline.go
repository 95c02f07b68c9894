package main

// Scenario timelines: cluster changes at virtual times (the kschedconf/v1 Scenario document of
// reference_impl/model/scenario.py), applied through the fake API server so the real scheduler
// sees them through its informers, as it would see kubectl's changes.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

type tlEvent struct {
	at                time.Duration
	action            string
	index             int
	target            string
	pod               *v1.Pod
	node              *v1.Node
	labels            map[string]*string
	taints            []v1.Taint
	untaints          []v1.Taint // Effect "" = every effect
	gates             []string   // removeSchedulingGates: nil = all
	after             string     // when: {podBound: KEY}: the pod whose binding triggers the event
	objectEventFields            // applyObject, deleteObject (timeline_objects.go)
}

type timeline struct {
	until  *time.Duration
	events []tlEvent
	// triggered: the events a binding triggers (when: {podBound: ...}), in document order.
	triggered []tlEvent
}

// triggeredBy returns the events the binding of pod key triggers, in document order.
func (tl *timeline) triggeredBy(key string) []tlEvent {
	var out []tlEvent
	for _, ev := range tl.triggered {
		if ev.after == key {
			out = append(out, ev)
		}
	}
	return out
}

// timelineEntry is one applied (or skipped) event in the result's "timeline".
type timelineEntry struct {
	Time   float64 `json:"time"`
	Index  int     `json:"index"`
	Action string  `json:"action"`
	Target string  `json:"target"`
	Result string  `json:"result"`
}

// parseDuration reads a duration: a number of seconds or a Go duration string ("1m30s").
func parseDuration(v interface{}) (time.Duration, error) {
	switch x := v.(type) {
	case int:
		return time.Duration(x) * time.Second, nil
	case int64:
		return time.Duration(x) * time.Second, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("expected a finite duration, got %v", x)
		}
		return time.Duration(math.Round(x * float64(time.Second))), nil
	case string:
		s := strings.TrimSpace(x)
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return parseDuration(f)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: expected a number of seconds or a Go duration such as \"90s\", \"1m30s\", \"250ms\"", x)
		}
		return d, nil
	}
	return 0, fmt.Errorf("expected a duration like \"30s\" or a number of seconds, got %T", v)
}

func scenarioKey(s string) string {
	if strings.Contains(s, "/") {
		return s
	}
	return "default/" + s
}

// parseTimeline reads a Scenario document's spec (until, events) against the cluster.
func parseTimeline(o rawObject, cl *Cluster) (*timeline, error) {
	tl := &timeline{}
	spec, _ := o.doc["spec"].(map[string]interface{})
	if u, ok := spec["until"]; ok && u != nil {
		d, err := parseDuration(u)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.until: %v", o.where, err)
		}
		tl.until = &d
	}
	raw, _ := spec["events"].([]interface{})
	uids := map[types.UID]bool{}
	for _, p := range cl.Pods {
		uids[p.UID] = true
	}
	for i, r := range raw {
		path := fmt.Sprintf("%s: spec.events[%d]", o.where, i)
		e, ok := r.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("%s: expected an event mapping", path)
		}
		ev := tlEvent{index: i}
		ev.action, _ = e["action"].(string)
		if when, ok := e["when"]; ok {
			// Triggered by a binding (reference_impl/model/scenario.py checks the rest).
			wm, _ := when.(map[string]interface{})
			bound, _ := wm["podBound"].(string)
			if bound == "" || ev.action != "createPod" {
				return nil, fmt.Errorf("%s.when: expected {podBound: NAMESPACE/NAME} on a createPod event", path)
			}
			ev.after = scenarioKey(bound)
		} else {
			at, err := parseDuration(e["at"])
			if err != nil {
				return nil, fmt.Errorf("%s.at: %v", path, err)
			}
			ev.at = at
		}
		str := func(k string) string { s, _ := e[k].(string); return s }
		switch ev.action {
		case "createNode":
			m, ok := e["node"].(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("%s.node: expected a Node manifest", path)
			}
			m["kind"], m["apiVersion"] = "Node", "v1"
			n := &v1.Node{}
			if err := decodeTyped(rawObject{doc: m, where: path + ".node"}, n); err != nil {
				return nil, err
			}
			if n.UID == "" {
				n.UID = deterministicUID("Node", "", n.Name)
			}
			legacyscheme.Scheme.Default(n)
			ev.node, ev.target = n, n.Name
		case "createPod":
			m, ok := e["pod"].(map[string]interface{})
			if !ok {
				return nil, fmt.Errorf("%s.pod: expected a Pod manifest", path)
			}
			m["kind"], m["apiVersion"] = "Pod", "v1"
			p := &v1.Pod{}
			if err := decodeTyped(rawObject{doc: m, where: path + ".pod"}, p); err != nil {
				return nil, err
			}
			if p.Namespace == "" {
				p.Namespace = metav1.NamespaceDefault
			}
			if err := admitPod(p, cl.PriorityClasses); err != nil {
				return nil, fmt.Errorf("%s.pod: %v", path, err)
			}
			ev.pod, ev.target = p, podKey(p)
		case "deleteNode", "cordon", "uncordon", "labelNode", "taintNode", "untaintNode":
			ev.target = str("node")
			if ev.target == "" {
				return nil, fmt.Errorf("%s.node: expected the node name", path)
			}
		case "deletePod", "finishPod", "removeSchedulingGates":
			ev.target = scenarioKey(str("pod"))
			if str("pod") == "" {
				return nil, fmt.Errorf("%s.pod: expected the pod name", path)
			}
		case "applyObject", "deleteObject":
			if err := parseObjectEvent(&ev, e, path); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%s.action: unknown action %q", path, ev.action)
		}
		switch ev.action {
		case "labelNode":
			labels, _ := e["labels"].(map[string]interface{})
			ev.labels = map[string]*string{}
			for k, v := range labels {
				if v == nil {
					ev.labels[k] = nil
					continue
				}
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("%s.labels[%s]: expected a string or null", path, k)
				}
				ev.labels[k] = &s
			}
		case "taintNode", "untaintNode":
			list, ok := e["taints"].([]interface{})
			if m, isMap := e["taints"].(map[string]interface{}); isMap {
				list, ok = []interface{}{m}, true
			}
			if !ok {
				return nil, fmt.Errorf("%s.taints: expected a list of taints", path)
			}
			for _, t := range list {
				tm, _ := t.(map[string]interface{})
				key, _ := tm["key"].(string)
				value, _ := tm["value"].(string)
				effect, _ := tm["effect"].(string)
				taint := v1.Taint{Key: key, Value: value, Effect: v1.TaintEffect(effect)}
				if ev.action == "taintNode" {
					ev.taints = append(ev.taints, taint)
				} else {
					ev.untaints = append(ev.untaints, taint)
				}
			}
		case "removeSchedulingGates":
			if gs, ok := e["gates"].([]interface{}); ok {
				ev.gates = []string{}
				for _, g := range gs {
					s, _ := g.(string)
					ev.gates = append(ev.gates, s)
				}
			}
		}
		if ev.after != "" {
			tl.triggered = append(tl.triggered, ev)
		} else {
			tl.events = append(tl.events, ev)
		}
	}
	// Sorted by time; events at the same time in document order.
	for i := 1; i < len(tl.events); i++ {
		for j := i; j > 0 && tl.events[j].at < tl.events[j-1].at; j-- {
			tl.events[j], tl.events[j-1] = tl.events[j-1], tl.events[j]
		}
	}
	// A pod created again under a used UID gets "-2", "-3", ... in the order the pods are
	// created, as the Python side (Simulation._apply_createPod) names them at run time: the
	// timed events in time order, then the triggered ones (whose pods are created once, so a
	// suffix there needs a UID given twice in the input). The names of the claims made from
	// the pods' templates follow their UID (dra.go createTemplateClaims).
	for _, evs := range [][]tlEvent{tl.events, tl.triggered} {
		for _, ev := range evs {
			if ev.action != "createPod" {
				continue
			}
			p := ev.pod
			base, n := p.UID, 1
			for uids[p.UID] {
				n++
				p.UID = types.UID(fmt.Sprintf("%s-%d", base, n))
			}
			uids[p.UID] = true
		}
	}
	return tl, nil
}

// ----- applying events through the fake API -----

func (w *world) getPod(key string) (*v1.Pod, bool) {
	ns, name, _ := strings.Cut(key, "/")
	obj, err := w.tracker.Get(podsGVR, ns, name)
	if err != nil {
		return nil, false
	}
	return obj.(*v1.Pod).DeepCopy(), true
}

func (w *world) getNode(name string) (*v1.Node, bool) {
	obj, err := w.tracker.Get(nodesGVR, "", name)
	if err != nil {
		return nil, false
	}
	return obj.(*v1.Node).DeepCopy(), true
}

func (w *world) allPods() []v1.Pod {
	list, err := w.tracker.List(podsGVR, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, metav1.NamespaceAll)
	if err != nil {
		return nil
	}
	return list.(*v1.PodList).Items
}

// deletePod deletes a pod through the API; into says why ("removed" or "finished"). A pod with
// claims then gets the resourceclaim controller's cleanup (releasePodClaims).
func (w *world) deletePod(p *v1.Pod, into string) error {
	w.rec.mu.Lock()
	w.rec.deleteAs = into
	w.rec.mu.Unlock()
	defer func() {
		w.rec.mu.Lock()
		w.rec.deleteAs = ""
		w.rec.mu.Unlock()
	}()
	if err := w.tracker.Delete(podsGVR, p.Namespace, p.Name); err != nil {
		return err
	}
	// The resourceclaim controller reacts to the delete (dra.go releasePodClaims): the
	// scheduler sees the pod's delete first, then the claims' updates and deletes.
	if len(podResourceClaimNames(p)) == 0 {
		return nil
	}
	if err := w.settle(); err != nil {
		return err
	}
	_, err := w.releasePodClaims(p)
	return err
}

// apply applies one timeline event; it returns "" (applied) or why it was skipped.
func (w *world) apply(ev tlEvent) (string, error) {
	switch ev.action {
	case "createNode":
		if _, ok := w.getNode(ev.target); ok {
			return "skipped: node already exists", nil
		}
		return "", w.tracker.Create(nodesGVR, ev.node.DeepCopy(), "")
	case "deleteNode":
		n, ok := w.getNode(ev.target)
		if !ok {
			return "skipped: node not found", nil
		}
		if err := w.tracker.Delete(nodesGVR, "", n.Name); err != nil {
			return "", err
		}
		// The pod garbage collector deletes the pods bound to a deleted node.
		for _, p := range w.allPods() {
			if p.Spec.NodeName == n.Name {
				if err := w.deletePod(&p, "removed"); err != nil {
					return "", err
				}
			}
		}
		return "", nil
	case "cordon", "uncordon", "labelNode", "taintNode", "untaintNode":
		n, ok := w.getNode(ev.target)
		if !ok {
			return "skipped: node not found", nil
		}
		switch ev.action {
		case "cordon", "uncordon":
			n.Spec.Unschedulable = ev.action == "cordon"
		case "labelNode":
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			for k, v := range ev.labels {
				if v == nil {
					delete(n.Labels, k)
				} else {
					n.Labels[k] = *v
				}
			}
		case "taintNode": // kubectl taint --overwrite: same key and effect replaced
			for _, t := range ev.taints {
				replaced := false
				for i := range n.Spec.Taints {
					if n.Spec.Taints[i].Key == t.Key && n.Spec.Taints[i].Effect == t.Effect {
						n.Spec.Taints[i], replaced = t, true
						break
					}
				}
				if !replaced {
					n.Spec.Taints = append(n.Spec.Taints, t)
				}
			}
		case "untaintNode":
			var kept []v1.Taint
			for _, t := range n.Spec.Taints {
				drop := false
				for _, u := range ev.untaints {
					if t.Key == u.Key && (u.Effect == "" || t.Effect == u.Effect) {
						drop = true
					}
				}
				if !drop {
					kept = append(kept, t)
				}
			}
			n.Spec.Taints = kept
		}
		return "", w.tracker.Update(nodesGVR, n, "")
	case "createPod":
		if _, ok := w.getPod(ev.target); ok {
			return "skipped: pod already exists", nil
		}
		p := ev.pod.DeepCopy()
		if p.Spec.NodeName != "" {
			if _, ok := w.getNode(p.Spec.NodeName); !ok {
				return fmt.Sprintf("skipped: node %s not found", p.Spec.NodeName), nil
			}
		}
		if _, err := w.tracker.Get(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", p.Namespace); err != nil {
			ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.Namespace, UID: deterministicUID("Namespace", "", p.Namespace)}}
			legacyscheme.Scheme.Default(ns)
			if err := w.tracker.Create(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, ns, ""); err != nil {
				return "", err
			}
		}
		// The resourceclaim controller (dra.go createTemplateClaims): the claims of the pod's
		// templates first, their ResourceClaim Add events delivered (settle), then the pod with
		// its status.resourceClaimStatuses, so PreEnqueue finds them (as the reference's
		// Simulation._apply_createPod).
		if created, err := w.createTemplateClaims(p); err != nil {
			return "", err
		} else if created {
			if err := w.settle(); err != nil {
				return "", err
			}
		}
		if err := w.tracker.Create(podsGVR, p, p.Namespace); err != nil {
			return "", err
		}
		if p.Spec.NodeName != "" {
			w.rec.mu.Lock()
			w.rec.bindings[podKey(p)] = p.Spec.NodeName
			w.rec.mu.Unlock()
		}
		return "", nil
	case "deletePod":
		p, ok := w.getPod(ev.target)
		if !ok {
			return "skipped: pod not found", nil
		}
		return "", w.deletePod(p, "removed")
	case "finishPod":
		p, ok := w.getPod(ev.target)
		if !ok {
			return "skipped: pod not found", nil
		}
		if p.Spec.NodeName == "" {
			return "skipped: pod is not running", nil
		}
		// The scheduler's informers ignore terminal pods (status.phase field selector): a
		// finished pod is a delete for them.
		return "", w.deletePod(p, "finished")
	case "removeSchedulingGates":
		p, ok := w.getPod(ev.target)
		if !ok {
			return "skipped: pod not found", nil
		}
		if len(p.Spec.SchedulingGates) == 0 {
			return "skipped: pod has no scheduling gates", nil
		}
		var kept []v1.PodSchedulingGate
		if ev.gates != nil {
			for _, g := range p.Spec.SchedulingGates {
				remove := false
				for _, r := range ev.gates {
					if g.Name == r {
						remove = true
					}
				}
				if !remove {
					kept = append(kept, g)
				}
			}
		}
		p.Spec.SchedulingGates = kept
		return "", w.tracker.Update(podsGVR, p, p.Namespace)
	case "applyObject", "deleteObject":
		return w.applyObjectEvent(ev)
	}
	return "", fmt.Errorf("unknown action %q", ev.action)
}
