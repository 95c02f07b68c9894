package main

// Timeline events that write API objects (applyObject, deleteObject: the Scenario format of
// reference_impl/model/scenario.py, docs/reference.md#the-scenario-timeline): a DRA driver
// publishing or updating its ResourceSlices, an admin creating a DeviceClass or a
// DeviceTaintRule. They go through the fake API server, so the scheduler sees them as it would
// see the API server's watch: the ResourceSlice informer feeds the slice tracker
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go), which delivers the
// (patched) slices to the scheduler's handlers (pkg/scheduler/eventhandlers.go
// addAllEventHandlers, buildEvtResHandler); a DeviceTaintRule reaches the scheduler only as the
// ResourceSlice updates the tracker makes of it (syncSlice), with DRADeviceTaintRules.

import (
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
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
}

// parseObjectEvent reads the object of an applyObject event (decoded and defaulted as the input's
// objects are, decodeDRA) or the kind and name of a deleteObject event.
func parseObjectEvent(ev *tlEvent, e map[string]interface{}, path string) error {
	if ev.action == "deleteObject" {
		ev.objKind, _ = e["kind"].(string)
		name, _ := e["name"].(string)
		if _, ok := objectKindGVRs[ev.objKind]; !ok || name == "" {
			return fmt.Errorf("%s: expected kind (one of ResourceSlice, DeviceClass, DeviceTaintRule) and name", path)
		}
		ev.objName = name
		ev.target = ev.objKind + "/" + name
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
		return fmt.Errorf("%s.object.kind: expected one of ResourceSlice, DeviceClass, DeviceTaintRule, got %q", path, o.kind)
	}
	c := &Cluster{}
	if _, known, err := decodeDRA(o, c); err != nil {
		return err
	} else if !known && o.kind != "DeviceTaintRule" {
		return fmt.Errorf("%s.object.apiVersion: expected %s/v1, got %q", path, resourceGroup, o.apiVersion)
	}
	objs := c.DRA.objects()
	name, _ := m["metadata"].(map[string]interface{})["name"].(string)
	ev.objKind, ev.objName, ev.target = o.kind, name, o.kind+"/"+name
	if len(objs) == 1 {
		ev.object = objs[0]
	}
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
	if ev.action == "applyObject" && ev.object == nil {
		return "", nil
	}
	if ev.objKind == "DeviceTaintRule" && !servesDeviceTaintRules {
		// Nothing to write to (see parseObjectEvent); the reference drops the rule as well.
		return "", nil
	}
	_, err := w.tracker.Get(gvr, "", ev.objName)
	exists := err == nil
	if ev.action == "deleteObject" {
		if !exists {
			return fmt.Sprintf("skipped: %s %s not found", ev.objKind, ev.objName), nil
		}
		return "", w.countTaintRuleWrite(ev, w.tracker.Delete(gvr, "", ev.objName))
	}
	obj := ev.object.DeepCopyObject()
	if !exists {
		return "", w.countTaintRuleWrite(ev, w.tracker.Create(gvr, obj, ""))
	}
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion("") // a full replace (kubectl replace --force-conflicts)
	}
	return "", w.countTaintRuleWrite(ev, w.tracker.Update(gvr, obj, ""))
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
	object  runtime.Object // applyObject: the decoded, defaulted object (nil: no effect)
	objKind string
	objName string
}
