package main

// Timeline events that write API objects (applyObject, deleteObject: the Scenario format of
// reference_impl/model/scenario.py, docs/reference.md#the-scenario-timeline): a DRA driver
// publishing or updating its ResourceSlices, an admin creating a DeviceClass or a
// DeviceTaintRule, someone else allocating or deallocating a ResourceClaim. They go through
// the fake API server, so the scheduler sees them as it would see the API server's watch: the
// ResourceSlice informer feeds the slice tracker
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go), which delivers the
// (patched) slices to the scheduler's handlers (pkg/scheduler/eventhandlers.go
// addAllEventHandlers, buildEvtResHandler); a DeviceTaintRule reaches the scheduler only as the
// ResourceSlice updates the tracker makes of it (syncSlice), with DRADeviceTaintRules; a
// claim's events go to DynamicResources' isSchedulableAfterClaimChange.

import (
	"fmt"
	"sync/atomic"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deviceTaintRulesGVR is resource.k8s.io/v1 devicetaintrules (served since v1.37).
var deviceTaintRulesGVR = schema.GroupVersionResource{Group: resourceGroup, Version: "v1", Resource: "devicetaintrules"}

// objectKindGVRs are the kinds applyObject and deleteObject write (the Python parser refuses
// the others with the field path; this table is the Go side's copy of its TIMELINE_OBJECT_KINDS).
var objectKindGVRs = map[string]schema.GroupVersionResource{
	"ResourceSlice":   slicesGVR,
	"DeviceClass":     deviceClassesGVR,
	"DeviceTaintRule": deviceTaintRulesGVR,
	"ResourceClaim":   claimsGVR,
}

// objectKinds names the kinds in the parse errors.
const objectKinds = "ResourceSlice, DeviceClass, DeviceTaintRule, ResourceClaim"

// objectKey is the event's target (KIND/NAME, KIND/NAMESPACE/NAME for a claim) and the name the
// results use ("skipped: KIND NAME not found", NAMESPACE/NAME for a claim).
func (ev *tlEvent) objectKey() string {
	if ev.objNamespace != "" {
		return ev.objNamespace + "/" + ev.objName
	}
	return ev.objName
}

// parseObjectEvent reads the object of an applyObject event (decoded and defaulted as the input's
// objects are, decodeDRA) or the kind and name of a deleteObject event.
func parseObjectEvent(ev *tlEvent, e map[string]interface{}, path string) error {
	if ev.action == "deleteObject" {
		ev.objKind, _ = e["kind"].(string)
		name, _ := e["name"].(string)
		if _, ok := objectKindGVRs[ev.objKind]; !ok || name == "" {
			return fmt.Errorf("%s: expected kind (one of %s) and name", path, objectKinds)
		}
		ev.objName = name
		if ev.objKind == "ResourceClaim" {
			ev.objNamespace, _ = e["namespace"].(string)
			if ev.objNamespace == "" {
				ev.objNamespace = metav1.NamespaceDefault
			}
		}
		ev.target = ev.objKind + "/" + ev.objectKey()
		return nil
	}
	m, ok := e["object"].(map[string]interface{})
	if !ok {
		return fmt.Errorf("%s.object: expected an object manifest", path)
	}
	o := rawObject{doc: m, where: path + ".object"}
	o.kind, _ = m["kind"].(string)
	o.apiVersion, _ = m["apiVersion"].(string)
	if _, ok := objectKindGVRs[o.kind]; !ok {
		return fmt.Errorf("%s.object.kind: expected one of %s, got %q", path, objectKinds, o.kind)
	}
	c := &Cluster{}
	if _, known, err := decodeDRA(o, c); err != nil {
		return err
	} else if !known && o.kind != "DeviceTaintRule" {
		return fmt.Errorf("%s.object.apiVersion: expected %s/v1, got %q", path, resourceGroup, o.apiVersion)
	}
	objs := c.DRA.objects()
	name, _ := m["metadata"].(map[string]interface{})["name"].(string)
	ev.objKind, ev.objName = o.kind, name
	if len(objs) == 1 {
		ev.object = objs[0]
		if rc, ok := ev.object.(*resourceapi.ResourceClaim); ok {
			ev.objNamespace = rc.Namespace // defaulted (decodeDRA)
		}
	}
	ev.target = o.kind + "/" + ev.objectKey()
	// else a DeviceTaintRule of a release that serves none in resource.k8s.io/v1
	// (release_before_1_37.go decodeDeviceTaintRule): the write has no effect on the scheduler,
	// whose slice tracker does not watch rules without DRADeviceTaintRules (off before v1.37).
	return nil
}

// applyObjectEvent creates the event's object, or replaces the stored one of that name (a new
// resourceVersion: an update for the informers); deleteObject deletes it ("skipped" when absent).
func (w *world) applyObjectEvent(ev tlEvent) (string, error) {
	gvr := objectKindGVRs[ev.objKind]
	w.hasDRA = true
	if ev.objKind == "DeviceTaintRule" && !servesDeviceTaintRules {
		// Nothing to write to (see parseObjectEvent); the reference keeps the rule and applies
		// none without DRADeviceTaintRules, so the names are kept to skip a delete as it does.
		if w.unservedRules == nil {
			w.unservedRules = map[string]bool{}
		}
		if ev.action == "deleteObject" {
			if !w.unservedRules[ev.objName] {
				return fmt.Sprintf("skipped: %s %s not found", ev.objKind, ev.objName), nil
			}
			delete(w.unservedRules, ev.objName)
			return "", nil
		}
		w.unservedRules[ev.objName] = true
		return "", nil
	}
	if ev.action == "applyObject" && ev.object == nil {
		return "", nil
	}
	ns := ev.objNamespace
	_, err := w.tracker.Get(gvr, ns, ev.objName)
	exists := err == nil
	if ev.action == "deleteObject" {
		if !exists {
			return fmt.Sprintf("skipped: %s %s not found", ev.objKind, ev.objectKey()), nil
		}
		return "", w.countTaintRuleWrite(ev, w.tracker.Delete(gvr, ns, ev.objName))
	}
	obj := ev.object.DeepCopyObject()
	if !exists {
		return "", w.countTaintRuleWrite(ev, w.tracker.Create(gvr, obj, ns))
	}
	if m, err := meta.Accessor(obj); err == nil {
		// a full replace, status included (kubectl replace --force-conflicts, and the status
		// subresource for a claim: an allocation made or dropped by someone else)
		m.SetResourceVersion("")
	}
	return "", w.countTaintRuleWrite(ev, w.tracker.Update(gvr, obj, ns))
}

// countTaintRuleWrite counts a successful DeviceTaintRule write as a DRA write (the fake API
// server's tracker counts the other DRA kinds; settle then waits for the informer's event).
func (w *world) countTaintRuleWrite(ev tlEvent, err error) error {
	if err == nil && ev.objKind == "DeviceTaintRule" {
		atomic.AddInt64(&w.draWrites, 1)
	}
	return err
}

// objectEventFields are the fields of tlEvent the object events use.
type objectEventFields struct {
	object       runtime.Object // applyObject: the decoded, defaulted object (nil: no effect)
	objKind      string
	objName      string
	objNamespace string // a ResourceClaim's ("default" when not given); "" for the others
}
