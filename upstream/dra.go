package main

// Dynamic Resource Allocation (resource.k8s.io/v1): the DeviceClass, ResourceSlice,
// ResourceClaim and ResourceClaimTemplate documents of the input go into the fake API server
// before the informers start, so that the real DynamicResources plugin
// (pkg/scheduler/framework/plugins/dynamicresources) sees them from its first cycle; and the
// allocations the plugin wrote in PreBind are read back from the claims' status for the
// SimulationResult (docs/dra.md "Results").
//
// Claims created from the ResourceClaimTemplate of a pod of the input are not created here
// (upstream, the resourceclaim controller of kube-controller-manager does it): the harness's
// pre-pass writes the claim and the pod's status.resourceClaimStatuses into the input. For a
// pod a timeline createPod event creates, createTemplateClaims does the controller's part when
// the event is applied (timeline.go).

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/resource/install" // v1 defaulting (pkg/apis/resource/v1/defaults.go)
)

const resourceGroup = "resource.k8s.io"

var (
	claimsGVR        = schema.GroupVersionResource{Group: resourceGroup, Version: "v1", Resource: "resourceclaims"}
	slicesGVR        = schema.GroupVersionResource{Group: resourceGroup, Version: "v1", Resource: "resourceslices"}
	deviceClassesGVR = schema.GroupVersionResource{Group: resourceGroup, Version: "v1", Resource: "deviceclasses"}
	templatesGVR     = schema.GroupVersionResource{Group: resourceGroup, Version: "v1", Resource: "resourceclaimtemplates"}
)

// draObjects are the resource.k8s.io/v1 objects of the input, in input order.
type draObjects struct {
	DeviceClasses  []*resourceapi.DeviceClass
	ResourceSlices []*resourceapi.ResourceSlice
	ResourceClaims []*resourceapi.ResourceClaim
	Templates      []*resourceapi.ResourceClaimTemplate
	// TaintRules are the DeviceTaintRules (resource.k8s.io/v1 since v1.37:
	// decodeDeviceTaintRule in release_since_1_37.go / release_before_1_37.go).
	TaintRules []runtime.Object
	// UnservedTaintRules are the names of the DeviceTaintRules of a release that serves none
	// at resource.k8s.io/v1 (release_before_1_37.go): ignored, but a timeline delete of one
	// is applied, as the reference's, which keeps them (timeline_objects.go).
	UnservedTaintRules []string
}

// decodeDRA reads one resource.k8s.io/v1 document into the cluster, with v1 defaulting (as the
// API server stores it). It returns the object's key for the duplicate check, or false when the
// document is not one of the four DRA kinds (other versions of the group stay ignored, as the
// Python loader ignores them).
func decodeDRA(o rawObject, c *Cluster) (string, bool, error) {
	if o.apiVersion != resourceGroup+"/v1" {
		return "", false, nil
	}
	switch o.kind {
	case "DeviceClass":
		dc := &resourceapi.DeviceClass{}
		if err := decodeTyped(o, dc); err != nil {
			return "", true, err
		}
		if dc.UID == "" {
			dc.UID = deterministicUID("DeviceClass", "", dc.Name)
		}
		legacyscheme.Scheme.Default(dc)
		c.DRA.DeviceClasses = append(c.DRA.DeviceClasses, dc)
		return "DeviceClass " + dc.Name, true, nil
	case "ResourceSlice":
		rs := &resourceapi.ResourceSlice{}
		if err := decodeTyped(o, rs); err != nil {
			return "", true, err
		}
		if rs.UID == "" {
			rs.UID = deterministicUID("ResourceSlice", "", rs.Name)
		}
		legacyscheme.Scheme.Default(rs)
		c.DRA.ResourceSlices = append(c.DRA.ResourceSlices, rs)
		return "ResourceSlice " + rs.Name, true, nil
	case "ResourceClaim":
		rc := &resourceapi.ResourceClaim{}
		if err := decodeTyped(o, rc); err != nil {
			return "", true, err
		}
		key := defaultMeta(&rc.ObjectMeta, "ResourceClaim")
		legacyscheme.Scheme.Default(rc)
		c.DRA.ResourceClaims = append(c.DRA.ResourceClaims, rc)
		return "ResourceClaim " + key, true, nil
	case "ResourceClaimTemplate":
		t := &resourceapi.ResourceClaimTemplate{}
		if err := decodeTyped(o, t); err != nil {
			return "", true, err
		}
		key := defaultMeta(&t.ObjectMeta, "ResourceClaimTemplate")
		legacyscheme.Scheme.Default(t)
		c.DRA.Templates = append(c.DRA.Templates, t)
		return "ResourceClaimTemplate " + key, true, nil
	case "DeviceTaintRule":
		return decodeDeviceTaintRule(o, c)
	}
	return "", false, nil
}

// draNamespaces are the namespaces of the claims and templates (created like those of pods).
func (d *draObjects) namespaces() []string {
	var out []string
	for _, rc := range d.ResourceClaims {
		out = append(out, rc.Namespace)
	}
	for _, t := range d.Templates {
		out = append(out, t.Namespace)
	}
	return out
}

// objects lists the DRA objects to create: classes, slices, claims, templates, taint rules
// (which the scheduler's ResourceSlice tracker applies to the slices with DRADeviceTaintRules,
// k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go).
func (d *draObjects) objects() []runtime.Object {
	var out []runtime.Object
	for _, o := range d.DeviceClasses {
		out = append(out, o.DeepCopy())
	}
	for _, o := range d.ResourceSlices {
		out = append(out, o.DeepCopy())
	}
	for _, o := range d.ResourceClaims {
		out = append(out, o.DeepCopy())
	}
	for _, o := range d.Templates {
		out = append(out, o.DeepCopy())
	}
	for _, o := range d.TaintRules {
		out = append(out, o.DeepCopyObject())
	}
	return out
}

// ----- settling DRA events -----
//
// The DRA event handlers of the scheduler (eventhandlers.go addAllEventHandlers: ResourceClaim
// through the plugin's assume cache, ResourceSlice through the slice tracker, DeviceClass) also
// observe scheduler_event_handling_duration_seconds, but the assume cache skips informer events
// that are not newer than what the plugin assumed after its own API call, so their number cannot
// be predicted from the informer events. The pod/node count of settle therefore leaves the DRA
// labels out (isDRAEventLabel), and settle waits instead until the informers delivered every DRA
// write (draWrites == draEvents) and the DRA observations stopped moving (quiet's fingerprint).

// isDRAEventLabel reports whether an event_handling_duration label is a DRA event's
// (fwk.ClusterEvent.Label: resource then action type).
func isDRAEventLabel(label string) bool {
	for _, r := range []fwk.EventResource{fwk.ResourceClaim, fwk.ResourceSlice, fwk.DeviceClass} {
		if strings.HasPrefix(label, string(r)) {
			return true
		}
	}
	return false
}

// isDRAGVR reports whether writes to gvr are DRA writes the informers deliver.
func isDRAGVR(gvr schema.GroupVersionResource) bool {
	return gvr == claimsGVR || gvr == slicesGVR || gvr == deviceClassesGVR
}

// watchDRA adds our own handlers to the DRA informers (which the DynamicResources plugin
// created through the factory): they count the events delivered.
func (w *world) watchDRA() error {
	count := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { atomic.AddInt64(&w.draEvents, 1) },
		UpdateFunc: func(interface{}, interface{}) { atomic.AddInt64(&w.draEvents, 1) },
		DeleteFunc: func(interface{}) { atomic.AddInt64(&w.draEvents, 1) },
	}
	r := w.factory.Resource().V1()
	infs := []cache.SharedIndexInformer{r.ResourceClaims().Informer(), r.ResourceSlices().Informer(), r.DeviceClasses().Informer()}
	if inf := taintRuleInformer(w); inf != nil {
		// DeviceTaintRules: their writes are counted by hand (addDRAObjects, applyObjectEvent)
		infs = append(infs, inf)
	}
	for _, inf := range infs {
		if _, err := inf.AddEventHandler(count); err != nil {
			return err
		}
	}
	return nil
}

// addDRAObjects creates the DRA objects in the fake API server (before the informers start:
// they come with the informers' initial lists).
func (w *world) addDRAObjects(cl *Cluster) error {
	objs := cl.DRA.objects()
	w.hasDRA = len(objs) > 0
	// the tracker does not count DeviceTaintRule writes (gvrOf has no v1 type for them in every
	// release); their informer's Add events are counted (watchDRA)
	atomic.AddInt64(&w.draWrites, int64(len(cl.DRA.TaintRules)))
	w.unservedRules = map[string]bool{}
	for _, name := range cl.DRA.UnservedTaintRules {
		w.unservedRules[name] = true
	}
	for _, o := range objs {
		if err := w.tracker.Add(o); err != nil {
			return err
		}
	}
	return nil
}

// ----- the resourceclaim controller's claims for pods the timeline creates -----

// podResourceClaimAnnotation is resourceapi.PodResourceClaimAnnotation (spelled out: the
// constant is not in every supported release's k8s.io/api).
const podResourceClaimAnnotation = "resource.kubernetes.io/pod-claim-name"

// claimGenerateName is handleClaim's generateName (pkg/controller/resourceclaim/controller.go
// of v1.37.2): "<pod>-<pod claim>-", or when longer than 57 characters both names cut in
// proportion to their length, without the trailing hyphen (resourceclaims.claim_generate_name).
func claimGenerateName(podName, podClaimName string) string {
	generate := podName + "-" + podClaimName + "-"
	const maxBaseLen = 57
	if n := len(generate); n > maxBaseLen {
		generate = podName[:len(podName)*maxBaseLen/n] + "-" + podClaimName[:len(podClaimName)*maxBaseLen/n]
	}
	return generate
}

// createTemplateClaims does handleClaim (controller.go) for a pod about to be created: for each
// of its spec.resourceClaims with a resourceClaimTemplateName, no status entry and a template in
// the fake API server, it creates the ResourceClaim (the pod as controller owner, the template's
// annotations plus resource.kubernetes.io/pod-claim-name, its labels and spec) and adds the
// entry to p.Status.ResourceClaimStatuses. The name is the reference's
// (reference_impl/model/loader/resourceclaims.py template_claim_name): generateName with the
// key "ResourceClaim/<namespace>/<pod uid>/<n>", n counting from 0 past names taken; the uid is
// deterministicUID's. A missing template leaves the entry out (the controller would retry; the
// pod waits at PreEnqueue). It returns whether it created a claim.
func (w *world) createTemplateClaims(p *v1.Pod) (bool, error) {
	known := map[string]bool{}
	for _, s := range p.Status.ResourceClaimStatuses {
		known[s.Name] = true
	}
	created := false
	for _, pc := range p.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName == nil || known[pc.Name] {
			continue
		}
		obj, err := w.tracker.Get(templatesGVR, p.Namespace, *pc.ResourceClaimTemplateName)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return created, err
		}
		template := obj.(*resourceapi.ResourceClaimTemplate)
		base := claimGenerateName(p.Name, pc.Name)
		var name string
		for n := 0; ; n++ {
			name = generateName(base, fmt.Sprintf("ResourceClaim/%s/%s/%d", p.Namespace, p.UID, n))
			if _, err := w.tracker.Get(claimsGVR, p.Namespace, name); apierrors.IsNotFound(err) {
				break
			}
		}
		annotations := map[string]string{}
		for k, v := range template.Spec.ObjectMeta.Annotations {
			annotations[k] = v
		}
		annotations[podResourceClaimAnnotation] = pc.Name
		isTrue := true
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{
				Name:      name,
				Namespace: p.Namespace,
				UID:       deterministicUID("ResourceClaim", p.Namespace, name),
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: &isTrue,
				}},
				Annotations: annotations,
				Labels:      template.Spec.ObjectMeta.Labels,
			},
			Spec: *template.Spec.Spec.DeepCopy(),
		}
		if err := w.tracker.Create(claimsGVR, claim, p.Namespace); err != nil {
			return created, err
		}
		created = true
		claimName := name
		p.Status.ResourceClaimStatuses = append(p.Status.ResourceClaimStatuses,
			v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &claimName})
	}
	return created, nil
}

// ----- the resourceclaim controller's cleanup when a pod goes -----

// podResourceClaimNames is resourceclaim.PodClaims (k8s.io/dynamic-resource-allocation/resourceclaim/
// pod.go): the names of the pod's claims, in spec order (a template's from the pod's status),
// then its extended resources' claim (status.extendedResourceClaimStatus.resourceClaimName).
func podResourceClaimNames(p *v1.Pod) []string {
	var names []string
	for i := range p.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(p, &p.Spec.ResourceClaims[i])
		if err != nil || name == nil || *name == "" {
			continue
		}
		names = append(names, *name)
	}
	if ext := p.Status.ExtendedResourceClaimStatus; ext != nil && ext.ResourceClaimName != "" {
		names = append(names, ext.ResourceClaimName)
	}
	return names
}

// releasePodClaims does the resourceclaim controller's cleanup for a pod that is gone (deleted by
// a timeline event or by the preemption; pkg/controller/resourceclaim/controller.go of v1.37.2,
// the same logic in v1.34.4 to v1.36.3: enqueuePod then syncClaim; the reference's
// reference_impl/model/claim_cleanup.py release_pod_claims): each of its claims is synced
// (syncClaimAfter) until nothing changes, as each write queues it again
// (enqueueResourceClaim); then the garbage collector deletes a claim the pod owns, which is
// synced again. It returns whether it wrote anything.
func (w *world) releasePodClaims(p *v1.Pod) (bool, error) {
	wrote := false
	seen := map[string]bool{}
	for _, name := range podResourceClaimNames(p) {
		if seen[name] {
			continue
		}
		seen[name] = true
		ok, err := w.syncClaimUntilDone(p.Namespace, name, p.UID)
		wrote = wrote || ok
		if err != nil {
			return wrote, err
		}
		claim, err := w.getResourceClaim(p.Namespace, name)
		if err != nil || claim == nil || !ownedByPod(claim, p.UID) {
			if err != nil {
				return wrote, err
			}
			continue
		}
		// The garbage collector: the owner is gone (background deletion).
		ok, err = w.apiDeleteClaim(claim)
		wrote = wrote || ok
		if err != nil || !ok {
			if err != nil {
				return wrote, err
			}
			continue
		}
		ok, err = w.syncClaimUntilDone(p.Namespace, name, p.UID)
		wrote = wrote || ok
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}

// getResourceClaim is the stored ResourceClaim (a copy), nil when there is none.
func (w *world) getResourceClaim(ns, name string) (*resourceapi.ResourceClaim, error) {
	obj, err := w.tracker.Get(claimsGVR, ns, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resourceapi.ResourceClaim).DeepCopy(), nil
}

// syncClaimUntilDone runs syncClaimAfter on the stored claim until it writes nothing (at most
// four passes, as the reference's _MAX_PASSES).
func (w *world) syncClaimUntilDone(ns, name string, gone types.UID) (bool, error) {
	wrote := false
	for pass := 0; pass < 4; pass++ {
		claim, err := w.getResourceClaim(ns, name)
		if err != nil || claim == nil {
			return wrote, err
		}
		ok, err := w.syncClaimAfter(claim, gone, false)
		wrote = wrote || ok
		if err != nil || !ok {
			return wrote, err
		}
	}
	return wrote, nil
}

// ownedByPod: the claim's controller owner is the pod with this uid (owningPod).
func ownedByPod(claim *resourceapi.ResourceClaim, uid types.UID) bool {
	for _, owner := range claim.OwnerReferences {
		if owner.Controller != nil && *owner.Controller && owner.APIVersion == "v1" &&
			owner.Kind == "Pod" && owner.UID == uid {
			return true
		}
	}
	return false
}

// syncClaimAfter is one syncClaim (controller.go 1450-1690, v1.37.2) of claim after the pod with
// uid gone went: its reservedFor entries are dropped and, when some were, one status update
// writes the rest and, when none remain and the claim has the finalizer
// (resourceapi.Finalizer), clears the allocation (a claim without it keeps it); a claim with
// the finalizer and no allocation then loses it. Otherwise a claim with the finalizer, being
// deleted and without consumers, is deallocated and loses the finalizer. Then, without
// consumers, a claim the pod owns is deleted when the pod is done (ownerDone; a deleted pod is
// not in the lister: the garbage collector deletes its claims, releasePodClaims). The API
// server's status strategy (dropDeallocatedStatusDevices, pkg/registry/resource/resourceclaim/
// strategy.go) drops the deallocated devices' status.devices, which the fake tracker does not,
// so it is done here. It returns whether it wrote anything.
func (w *world) syncClaimAfter(claim *resourceapi.ResourceClaim, gone types.UID, ownerDone bool) (bool, error) {
	wrote := false
	remaining := make([]resourceapi.ResourceClaimConsumerReference, 0, len(claim.Status.ReservedFor))
	for _, r := range claim.Status.ReservedFor {
		if r.APIGroup == "" && r.Resource == "pods" && r.UID == gone {
			continue
		}
		remaining = append(remaining, r)
	}
	protected := slices.Contains(claim.Finalizers, resourceapi.Finalizer)
	exists := true
	var err error
	if len(remaining) < len(claim.Status.ReservedFor) {
		claim.Status.ReservedFor = remaining
		if len(remaining) == 0 && protected {
			claim.Status.Allocation = nil
			claim.Status.Devices = nil
		}
		if err := w.tracker.Update(claimsGVR, claim, claim.Namespace); err != nil {
			return wrote, err
		}
		wrote = true
		if protected && claim.Status.Allocation == nil {
			if exists, err = w.removeClaimFinalizer(claim); err != nil {
				return wrote, err
			}
		}
	} else if protected && claim.DeletionTimestamp != nil && len(remaining) == 0 {
		if claim.Status.Allocation != nil {
			claim.Status.Allocation = nil
			claim.Status.Devices = nil
			if err := w.tracker.Update(claimsGVR, claim, claim.Namespace); err != nil {
				return wrote, err
			}
		}
		wrote = true
		if exists, err = w.removeClaimFinalizer(claim); err != nil {
			return wrote, err
		}
	}
	if exists && len(remaining) == 0 && ownerDone && ownedByPod(claim, gone) {
		ok, err := w.apiDeleteClaim(claim)
		return wrote || ok, err
	}
	return wrote, nil
}

// removeClaimFinalizer is the controller's update removing resourceapi.Finalizer; a claim being
// deleted that is left without finalizers is removed, as the API server does
// (shouldDeleteDuringUpdate, k8s.io/apiserver/pkg/registry/generic/registry/store.go), which the
// fake tracker does not. It returns whether the claim still exists.
func (w *world) removeClaimFinalizer(claim *resourceapi.ResourceClaim) (bool, error) {
	claim.Finalizers = slices.DeleteFunc(claim.Finalizers, func(f string) bool { return f == resourceapi.Finalizer })
	if claim.DeletionTimestamp != nil && len(claim.Finalizers) == 0 {
		return false, w.tracker.Delete(claimsGVR, claim.Namespace, claim.Name)
	}
	return true, w.tracker.Update(claimsGVR, claim, claim.Namespace)
}

// apiDeleteClaim deletes the claim as the API server does: one with finalizers only gets its
// deletionTimestamp (an update; nothing for one already being deleted), one without is removed.
// It returns whether it wrote anything.
func (w *world) apiDeleteClaim(claim *resourceapi.ResourceClaim) (bool, error) {
	if len(claim.Finalizers) == 0 {
		return true, w.tracker.Delete(claimsGVR, claim.Namespace, claim.Name)
	}
	if claim.DeletionTimestamp != nil {
		return false, nil
	}
	now := metav1.NewTime(w.clock.Now())
	claim.DeletionTimestamp = &now
	return true, w.tracker.Update(claimsGVR, claim, claim.Namespace)
}

// ----- results -----

// allocatedDevice is one device of an allocation (resourceapi.DeviceRequestAllocationResult).
// Shared says that the result has a shareID (upstream's are random UUIDs, so only their
// presence is reported); consumedCapacity gives each quantity as an exact rational
// (big.Rat.RatString: "2", "3/10"), whatever its format (docs/dra.md "Results").
type allocatedDevice struct {
	Request          string            `json:"request"`
	Driver           string            `json:"driver"`
	Pool             string            `json:"pool"`
	Device           string            `json:"device"`
	Shared           bool              `json:"shared,omitempty"`
	ConsumedCapacity map[string]string `json:"consumedCapacity,omitempty"`
}

// allocatedConfig is one configuration of an allocation (resourceapi.DeviceAllocationConfiguration,
// opaque only): source FromClass or FromClaim, the requests it applies to (none: all), the
// driver and its parameters as given (docs/dra.md "Results").
type allocatedConfig struct {
	Source     string          `json:"source"`
	Requests   []string        `json:"requests,omitempty"`
	Driver     string          `json:"driver"`
	Parameters json.RawMessage `json:"parameters"`
}

type claimAllocation struct {
	Devices []allocatedDevice `json:"devices"`
	Config  []allocatedConfig `json:"config,omitempty"`
}

// podClaimResult is one entry of a bound pod's spec.resourceClaims with what its claim holds.
type podClaimResult struct {
	Name       string           `json:"name"`       // the pod's spec.resourceClaims[].name
	Claim      *string          `json:"claim"`      // the ResourceClaim's name, null if none
	Allocation *claimAllocation `json:"allocation"` // status.allocation, null if not allocated
}

// extendedResourcesEntry names the entry of a pod's extended-resource claim among its claim
// results: the scheduler's in-memory name of that claim (specialClaimInMemName in
// extendeddynamicresources.go), which no spec.resourceClaims entry can have.
const extendedResourcesEntry = "<extended-resources>"

// claimResults reads, for every bound pod with spec.resourceClaims, the allocation of its
// claims from the fake API server (what PreBind wrote: dynamicresources.go bindClaim), in the
// order of the pod's claims, then the claim of its extended resources backed by DRA if it has
// one. The claim name is resourceclaim.Name's
// (k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go).
func (w *world) claimResults(bindings map[string]string) (map[string][]podClaimResult, error) {
	out := map[string][]podClaimResult{}
	// The claims of extended resources backed by DRA, by the uid of their pod: what
	// findExtendedResourceClaim (extendeddynamicresources.go) finds, the claim PreBind created
	// and recorded in the pod's status.extendedResourceClaimStatus, or one of the input.
	extended := map[types.UID]*resourceapi.ResourceClaim{}
	claimList, err := w.tracker.List(claimsGVR, schema.GroupVersionKind{Group: resourceGroup, Version: "v1", Kind: "ResourceClaim"}, metav1.NamespaceAll)
	if err != nil {
		return nil, err
	}
	for i := range claimList.(*resourceapi.ResourceClaimList).Items {
		c := &claimList.(*resourceapi.ResourceClaimList).Items[i]
		if c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		for _, or := range c.OwnerReferences {
			if or.Kind == "Pod" && or.Controller != nil && *or.Controller {
				extended[or.UID] = c
			}
		}
	}
	list, err := w.tracker.List(podsGVR, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, metav1.NamespaceAll)
	if err != nil {
		return nil, err
	}
	for i := range list.(*v1.PodList).Items {
		pod := &list.(*v1.PodList).Items[i]
		ext := extended[pod.UID]
		if _, bound := bindings[podKey(pod)]; !bound || (len(pod.Spec.ResourceClaims) == 0 && ext == nil) {
			continue
		}
		var claims []podClaimResult
		for j := range pod.Spec.ResourceClaims {
			pc := &pod.Spec.ResourceClaims[j]
			res := podClaimResult{Name: pc.Name}
			name, _, err := resourceclaim.Name(pod, pc)
			if err == nil && name != nil {
				res.Claim = name
				obj, err := w.tracker.Get(claimsGVR, pod.Namespace, *name)
				if err == nil {
					res.Allocation = allocationOf(obj.(*resourceapi.ResourceClaim))
				}
			}
			claims = append(claims, res)
		}
		if ext != nil {
			name := ext.Name
			claims = append(claims, podClaimResult{Name: extendedResourcesEntry, Claim: &name, Allocation: allocationOf(ext)})
		}
		out[podKey(pod)] = claims
	}
	return out, nil
}

// extendedClaimStatuses reads, for every bound pod, the status.extendedResourceClaimStatus
// that DynamicResources' PreBind patched (patchPodExtendedResourceClaimStatus in
// extendeddynamicresources.go) from the fake API server: the claim's name and the container
// request mappings, as the API has them (resourceClaimName, requestMappings with
// containerName, resourceName, requestName). Nil when no pod has one.
func (w *world) extendedClaimStatuses(bindings map[string]string) (map[string]*v1.PodExtendedResourceClaimStatus, error) {
	list, err := w.tracker.List(podsGVR, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, metav1.NamespaceAll)
	if err != nil {
		return nil, err
	}
	var out map[string]*v1.PodExtendedResourceClaimStatus
	for i := range list.(*v1.PodList).Items {
		pod := &list.(*v1.PodList).Items[i]
		if _, bound := bindings[podKey(pod)]; !bound || pod.Status.ExtendedResourceClaimStatus == nil {
			continue
		}
		if out == nil {
			out = map[string]*v1.PodExtendedResourceClaimStatus{}
		}
		out[podKey(pod)] = pod.Status.ExtendedResourceClaimStatus
	}
	return out, nil
}

// quantityRat is the exact value of a quantity as a rational ("2", "3/10", "-5").
func quantityRat(q resource.Quantity) string {
	r, ok := new(big.Rat).SetString(q.AsDec().String())
	if !ok {
		return q.String()
	}
	return r.RatString()
}

func allocationOf(claim *resourceapi.ResourceClaim) *claimAllocation {
	if claim.Status.Allocation == nil {
		return nil
	}
	a := &claimAllocation{Devices: []allocatedDevice{}}
	for _, r := range claim.Status.Allocation.Devices.Results {
		d := allocatedDevice{Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device, Shared: r.ShareID != nil}
		for name, q := range r.ConsumedCapacity {
			if d.ConsumedCapacity == nil {
				d.ConsumedCapacity = map[string]string{}
			}
			d.ConsumedCapacity[string(name)] = quantityRat(q)
		}
		a.Devices = append(a.Devices, d)
	}
	for _, c := range claim.Status.Allocation.Devices.Config {
		if c.Opaque == nil {
			continue
		}
		a.Config = append(a.Config, allocatedConfig{Source: string(c.Source), Requests: c.Requests,
			Driver: c.Opaque.Driver, Parameters: json.RawMessage(c.Opaque.Parameters.Raw)})
	}
	return a
}
