package main

// Storage (docs/storage.md): the PersistentVolume, PersistentVolumeClaim and storage.k8s.io/v1
// (StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment) documents of the
// input go into the fake API server before the informers start, so that the real volume plugins
// (VolumeBinding, VolumeRestrictions, NodeVolumeLimits, VolumeZone) see them from their first
// cycle; the simulated PV controller and external provisioner (below) complete what
// VolumeBinding's PreBind starts; and the claims are read back for the SimulationResult's
// persistentVolumeClaims (reference_impl/storage/results.py).
//
// Claims created around the loader (generic ephemeral volumes, StatefulSet volumeClaimTemplates,
// the DefaultStorageClass admission) are documents the harness writes into the input before.

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/storage/install" // v1 defaulting (pkg/apis/storage/v1/defaults.go)
)

const storageGroup = "storage.k8s.io"

var (
	pvGVR      = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
	pvcGVR     = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	scGVR      = schema.GroupVersionResource{Group: storageGroup, Version: "v1", Resource: "storageclasses"}
	csiNodeGVR = schema.GroupVersionResource{Group: storageGroup, Version: "v1", Resource: "csinodes"}
)

// storageObjects are the storage objects of the input, in input order.
type storageObjects struct {
	Volumes     []*v1.PersistentVolume
	Claims      []*v1.PersistentVolumeClaim
	Classes     []*storagev1.StorageClass
	CSINodes    []*storagev1.CSINode
	CSIDrivers  []*storagev1.CSIDriver
	Capacities  []*storagev1.CSIStorageCapacity
	Attachments []*storagev1.VolumeAttachment
}

// decodeStorage reads one PersistentVolume or PersistentVolumeClaim (v1) or storage.k8s.io/v1
// document into the cluster, with v1 defaulting (as the API server stores it), and the Python
// loader's UID when metadata.uid is not given (reference_impl/model/loader/storage.py _uid). It
// returns the object's key for the duplicate check, or false when the document is not one of
// the storage kinds the Python loader reads (storage_kind).
func decodeStorage(o rawObject, c *Cluster) (string, bool, error) {
	s := &c.Storage
	switch {
	case o.apiVersion == "v1" && o.kind == "PersistentVolume":
		pv := &v1.PersistentVolume{}
		if err := decodeTyped(o, pv); err != nil {
			return "", true, err
		}
		if pv.UID == "" {
			pv.UID = deterministicUID("PersistentVolume", "", pv.Name)
		}
		legacyscheme.Scheme.Default(pv)
		s.Volumes = append(s.Volumes, pv)
		return "PersistentVolume " + pv.Name, true, nil
	case o.apiVersion == "v1" && o.kind == "PersistentVolumeClaim":
		pvc := &v1.PersistentVolumeClaim{}
		if err := decodeTyped(o, pvc); err != nil {
			return "", true, err
		}
		key := defaultMeta(&pvc.ObjectMeta, "PersistentVolumeClaim")
		legacyscheme.Scheme.Default(pvc)
		s.Claims = append(s.Claims, pvc)
		return "PersistentVolumeClaim " + key, true, nil
	case o.apiVersion != storageGroup+"/v1":
		return "", false, nil
	}
	switch o.kind {
	case "StorageClass":
		sc := &storagev1.StorageClass{}
		if err := decodeTyped(o, sc); err != nil {
			return "", true, err
		}
		clusterScoped(&sc.ObjectMeta, "StorageClass")
		legacyscheme.Scheme.Default(sc)
		s.Classes = append(s.Classes, sc)
		return "StorageClass " + sc.Name, true, nil
	case "CSINode":
		cn := &storagev1.CSINode{}
		if err := decodeTyped(o, cn); err != nil {
			return "", true, err
		}
		clusterScoped(&cn.ObjectMeta, "CSINode")
		legacyscheme.Scheme.Default(cn)
		s.CSINodes = append(s.CSINodes, cn)
		return "CSINode " + cn.Name, true, nil
	case "CSIDriver":
		d := &storagev1.CSIDriver{}
		if err := decodeTyped(o, d); err != nil {
			return "", true, err
		}
		clusterScoped(&d.ObjectMeta, "CSIDriver")
		legacyscheme.Scheme.Default(d)
		s.CSIDrivers = append(s.CSIDrivers, d)
		return "CSIDriver " + d.Name, true, nil
	case "CSIStorageCapacity":
		cap := &storagev1.CSIStorageCapacity{}
		if err := decodeTyped(o, cap); err != nil {
			return "", true, err
		}
		key := defaultMeta(&cap.ObjectMeta, "CSIStorageCapacity")
		legacyscheme.Scheme.Default(cap)
		s.Capacities = append(s.Capacities, cap)
		return "CSIStorageCapacity " + key, true, nil
	case "VolumeAttachment":
		va := &storagev1.VolumeAttachment{}
		if err := decodeTyped(o, va); err != nil {
			return "", true, err
		}
		clusterScoped(&va.ObjectMeta, "VolumeAttachment")
		legacyscheme.Scheme.Default(va)
		s.Attachments = append(s.Attachments, va)
		return "VolumeAttachment " + va.Name, true, nil
	}
	return "", false, nil
}

// clusterScoped gives a cluster-scoped object the Python loader's deterministic UID.
func clusterScoped(m *metav1.ObjectMeta, kind string) {
	if m.UID == "" {
		m.UID = deterministicUID(kind, "", m.Name)
	}
}

// namespaces are the namespaces of the claims and capacities (created like those of pods).
func (s *storageObjects) namespaces() []string {
	var out []string
	for _, c := range s.Claims {
		out = append(out, c.Namespace)
	}
	for _, c := range s.Capacities {
		out = append(out, c.Namespace)
	}
	return out
}

// objects lists the storage objects to create: classes, CSI drivers, CSI nodes, capacities,
// volumes, claims, attachments.
func (s *storageObjects) objects() []runtime.Object {
	var out []runtime.Object
	for _, o := range s.Classes {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.CSIDrivers {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.CSINodes {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.Capacities {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.Volumes {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.Claims {
		out = append(out, o.DeepCopy())
	}
	for _, o := range s.Attachments {
		out = append(out, o.DeepCopy())
	}
	return out
}

// addStorageObjects creates the storage objects in the fake API server (before the informers
// start: they come with the informers' initial lists).
func (w *world) addStorageObjects(cl *Cluster) error {
	objs := cl.Storage.objects()
	w.hasStorage = len(objs) > 0
	for _, o := range objs {
		if err := w.tracker.Add(o); err != nil {
			return err
		}
	}
	return nil
}

// ----- settling storage events -----
//
// As for DRA (dra.go), the scheduler's storage event handlers (eventhandlers.go
// buildEvtResHandler for PersistentVolume, PersistentVolumeClaim and the storage.k8s.io kinds)
// observe scheduler_event_handling_duration_seconds, and the VolumeBinding assume caches skip
// informer events no newer than what was assumed: settle leaves their labels out of the pod/node
// count and waits until every PV/PVC write reached our own handlers (storageWrites ==
// storageEvents) and the storage observations stopped moving.

// isStorageEventLabel reports whether an event_handling_duration label is a storage event's.
func isStorageEventLabel(label string) bool {
	for _, r := range []fwk.EventResource{fwk.PersistentVolume, fwk.PersistentVolumeClaim, fwk.StorageClass,
		fwk.CSINode, fwk.CSIDriver, fwk.CSIStorageCapacity, fwk.VolumeAttachment} {
		if strings.HasPrefix(label, string(r)) {
			return true
		}
	}
	return false
}

// isStorageGVR reports whether writes to gvr are the PV/PVC writes the informers deliver (the
// other storage kinds are written only before the informers start).
func isStorageGVR(gvr schema.GroupVersionResource) bool {
	return gvr == pvGVR || gvr == pvcGVR
}

// watchStorage adds our own handlers to the PV and PVC informers (which VolumeBinding created
// through the factory): they count the events delivered, and each is a cluster change for the
// quiescence rule (the reference's Simulation._storage_changed).
func (w *world) watchStorage() error {
	count := cache.ResourceEventHandlerFuncs{
		AddFunc: func(interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.storageEvents, 1)
		},
		UpdateFunc: func(interface{}, interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.storageEvents, 1)
		},
		DeleteFunc: func(interface{}) {
			atomic.AddInt64(&w.version, 1)
			atomic.AddInt64(&w.storageEvents, 1)
		},
	}
	c := w.factory.Core().V1()
	for _, inf := range []cache.SharedIndexInformer{c.PersistentVolumes().Informer(), c.PersistentVolumeClaims().Informer()} {
		if _, err := inf.AddEventHandler(count); err != nil {
			return err
		}
	}
	return nil
}

// ----- results -----

// claimResult is one entry of persistentVolumeClaims (reference_impl/storage/results.py
// claim_result).
type claimResult struct {
	Namespace    string `json:"namespace"`
	Name         string `json:"name"`
	Phase        string `json:"phase"`
	VolumeName   string `json:"volumeName"`
	SelectedNode string `json:"selectedNode,omitempty"`
}

// persistentVolumeClaimResults lists every claim of the fake API server at the end of the run,
// sorted by namespace/name; nil when there is none (the field is then omitted).
func (w *world) persistentVolumeClaimResults() ([]claimResult, error) {
	list, err := w.tracker.List(pvcGVR, schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, metav1.NamespaceAll)
	if err != nil {
		return nil, err
	}
	var out []claimResult
	for i := range list.(*v1.PersistentVolumeClaimList).Items {
		c := &list.(*v1.PersistentVolumeClaimList).Items[i]
		phase := string(c.Status.Phase)
		if phase == "" {
			phase = string(v1.ClaimPending)
		}
		out = append(out, claimResult{Namespace: c.Namespace, Name: c.Name, Phase: phase,
			VolumeName: c.Spec.VolumeName, SelectedNode: c.Annotations[annSelectedNode]})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name
	})
	return out, nil
}

// ----- the simulated PV controller and external provisioner -----
//
// reference_impl/storage/pv_controller.py, written against the fake API server. VolumeBinding's
// PreBind (binder.go BindPodVolumes) writes its decisions in bindAPIUpdate (each chosen PV
// Updated with its claimRef, then each claim to provision Updated with the selected-node
// annotation), then polls checkBindings every second of real time (wait.PollUntilContextTimeout
// with time.Second, not the scheduler's clock, first check after one interval) until every claim
// is fully bound. The reference runs the controllers right after the last of those writes
// (binder.py bind_pod_volumes, complete_pod_volumes); here they run in the reactor of that last
// write, before the write returns to the scheduler: the informers see the scheduler's writes,
// then the controllers' ones, in the reference's order, and everything is done long before
// the first check, whatever the machine's load. The last write is known by count: the binding
// pod's claims that are not bound (spec.volumeName empty) are exactly the claims bindAPIUpdate
// writes (bound claims are left alone; an unbound Immediate claim never gets past Filter).

const (
	annBindCompleted          = "pv.kubernetes.io/bind-completed"
	annBoundByController      = "pv.kubernetes.io/bound-by-controller"
	annSelectedNode           = "volume.kubernetes.io/selected-node"
	annStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	annDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by"
	annBetaStorageClass       = "volume.beta.kubernetes.io/storage-class"
	// notSupportedProvisioner is pkg/controller/volume/persistentvolume/util NotSupportedProvisioner.
	notSupportedProvisioner = "kubernetes.io/no-provisioner"
)

// volumeWrites counts the scheduler's PV/PVC writes of the pod in its binding cycle.
type volumeWrites struct {
	pod      types.UID
	expected int
	claims   []string // namespace/name, in write order
}

// storageReactor wraps the fake API server's PV and PVC updates: after a scheduler write, when
// it is the last one of the binding pod's bindAPIUpdate, the controllers complete the pod's
// claims. The fake clientset holds its lock while reactors run, so nothing else is written
// through it meanwhile; the controllers write to the tracker directly.
func (w *world) storageReactor(action clienttesting.Action) (bool, runtime.Object, error) {
	ua, ok := action.(clienttesting.UpdateActionImpl)
	if !ok || ua.GetSubresource() != "" {
		return false, nil, nil
	}
	handled, obj, err := clienttesting.ObjectReaction(w.tracker)(action)
	if err != nil || !handled {
		return handled, obj, err
	}
	var key string
	switch o := ua.GetObject().(type) {
	case *v1.PersistentVolume:
		if o.Spec.ClaimRef == nil {
			return handled, obj, err
		}
		key = o.Spec.ClaimRef.Namespace + "/" + o.Spec.ClaimRef.Name
	case *v1.PersistentVolumeClaim:
		key = o.Namespace + "/" + o.Name
	default:
		return handled, obj, err
	}
	if cerr := w.afterVolumeWrite(key); cerr != nil {
		w.note(fmt.Sprintf("storage controllers: %v", cerr))
	}
	return handled, obj, err
}

// bindingPod is the pod in its binding cycle (Permit to PostBind or failure), nil if none.
func (w *world) bindingPod() *v1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.bindingPods {
		return p
	}
	return nil
}

func (w *world) afterVolumeWrite(key string) error {
	pod := w.bindingPod()
	if pod == nil {
		return nil
	}
	vw := &w.volumeWrites
	if vw.pod != pod.UID {
		*vw = volumeWrites{pod: pod.UID, expected: w.unboundClaims(pod)}
	}
	vw.claims = append(vw.claims, key)
	if len(vw.claims) < vw.expected {
		return nil
	}
	claims := vw.claims
	*vw = volumeWrites{}
	return w.completePodVolumes(pod.Spec.NodeName, claims)
}

// podClaimNames are the claims of a pod's volumes, once each: a persistentVolumeClaim volume's
// claimName, an ephemeral volume's <pod>-<volume> (ephemeral.VolumeClaimName).
func podClaimNames(pod *v1.Pod) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		name := ""
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			name = pod.Name + "-" + v.Name
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// unboundClaims counts the pod's existing claims with no spec.volumeName.
func (w *world) unboundClaims(pod *v1.Pod) int {
	n := 0
	for _, name := range podClaimNames(pod) {
		if c := w.getClaim(pod.Namespace + "/" + name); c != nil && c.Spec.VolumeName == "" {
			n++
		}
	}
	return n
}

func (w *world) getClaim(key string) *v1.PersistentVolumeClaim {
	ns, name, _ := strings.Cut(key, "/")
	obj, err := w.tracker.Get(pvcGVR, ns, name)
	if err != nil {
		return nil
	}
	return obj.(*v1.PersistentVolumeClaim).DeepCopy()
}

func (w *world) getVolume(name string) *v1.PersistentVolume {
	obj, err := w.tracker.Get(pvGVR, "", name)
	if err != nil {
		return nil
	}
	return obj.(*v1.PersistentVolume).DeepCopy()
}

// completePodVolumes is pv_controller.py complete_pod_volumes: each claim a PV is (pre)bound to
// is bound to it; each claim annotated for provisioning on node gets a provisioned PV and is
// bound to it; a claim already bound, or one nothing was started for, is left as it is.
func (w *world) completePodVolumes(node string, claims []string) error {
	for _, key := range claims {
		claim := w.getClaim(key)
		if claim == nil || bindCompleted(claim) {
			continue
		}
		volume := w.volumeForClaim(claim)
		if volume == nil && claim.Annotations[annSelectedNode] == node {
			var err error
			if claim, volume, err = w.provision(node, claim); err != nil {
				return err
			}
		}
		if volume != nil {
			if err := w.bind(volume, claim); err != nil {
				return err
			}
		}
	}
	return nil
}

// bindCompleted: syncClaim sends a claim with pv.kubernetes.io/bind-completed to
// syncBoundClaim, which has nothing to do for a claim bound to its volume (pv_controller.go).
func bindCompleted(claim *v1.PersistentVolumeClaim) bool {
	_, ok := claim.Annotations[annBindCompleted]
	return ok && claim.Spec.VolumeName != ""
}

// isVolumeBoundToClaim is component-helpers storage/volume/pv_helpers.go IsVolumeBoundToClaim.
func isVolumeBoundToClaim(volume *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) bool {
	ref := volume.Spec.ClaimRef
	if ref == nil || ref.Name != claim.Name || ref.Namespace != claim.Namespace {
		return false
	}
	return ref.UID == "" || ref.UID == claim.UID
}

// volumeForClaim is the volume syncUnboundClaim binds: the one the claim names (when its
// claimRef is free or this claim), else a volume pre-bound to the claim (findByClaim), by name.
func (w *world) volumeForClaim(claim *v1.PersistentVolumeClaim) *v1.PersistentVolume {
	if claim.Spec.VolumeName != "" {
		named := w.getVolume(claim.Spec.VolumeName)
		if named == nil || (named.Spec.ClaimRef != nil && !isVolumeBoundToClaim(named, claim)) {
			return nil
		}
		return named
	}
	list, err := w.tracker.List(pvGVR, schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, "")
	if err != nil {
		return nil
	}
	items := list.(*v1.PersistentVolumeList).Items
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	for i := range items {
		if isVolumeBoundToClaim(&items[i], claim) && items[i].DeletionTimestamp == nil {
			return items[i].DeepCopy()
		}
	}
	return nil
}

// claimClass is pv_helpers.go GetPersistentVolumeClaimClass.
func claimClass(claim *v1.PersistentVolumeClaim) string {
	if c, ok := claim.Annotations[annBetaStorageClass]; ok {
		return c
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}

// bind is pv_controller.go bind: the volume first (bindVolumeToClaim, updateVolumePhase Bound),
// then the claim (bindClaimToVolume, updateClaimStatus Bound); each step writes only when
// something changes.
func (w *world) bind(volume *v1.PersistentVolume, claim *v1.PersistentVolumeClaim) error {
	// bindVolumeToClaim with GetBindVolumeToClaim
	setBoundBy := !isVolumeBoundToClaim(volume, claim)
	ref := volume.Spec.ClaimRef
	_, hasBoundBy := volume.Annotations[annBoundByController]
	if ref == nil || ref.Name != claim.Name || ref.Namespace != claim.Namespace || ref.UID != claim.UID ||
		(setBoundBy && !hasBoundBy) {
		if err := w.updateVolume(volume.Name, func(pv *v1.PersistentVolume) {
			r := pv.Spec.ClaimRef
			if r == nil || r.Name != claim.Name || r.Namespace != claim.Namespace || r.UID != claim.UID {
				pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
					Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID, ResourceVersion: claim.ResourceVersion}
			}
			if _, ok := pv.Annotations[annBoundByController]; setBoundBy && !ok {
				metav1.SetMetaDataAnnotation(&pv.ObjectMeta, annBoundByController, "yes")
			}
		}); err != nil {
			return err
		}
	}
	// updateVolumePhase
	if pv := w.getVolume(volume.Name); pv != nil && pv.Status.Phase != v1.VolumeBound {
		if err := w.updateVolume(volume.Name, func(pv *v1.PersistentVolume) { pv.Status.Phase = v1.VolumeBound }); err != nil {
			return err
		}
	}
	// bindClaimToVolume
	cur := w.getClaim(claim.Namespace + "/" + claim.Name)
	if cur == nil {
		return fmt.Errorf("claim %s/%s is gone", claim.Namespace, claim.Name)
	}
	_, completed := cur.Annotations[annBindCompleted]
	if cur.Spec.VolumeName != volume.Name || !completed {
		if err := w.updateClaim(cur, func(c *v1.PersistentVolumeClaim) {
			if c.Spec.VolumeName != volume.Name {
				c.Spec.VolumeName = volume.Name
				if _, ok := c.Annotations[annBoundByController]; !ok {
					metav1.SetMetaDataAnnotation(&c.ObjectMeta, annBoundByController, "yes")
				}
			}
			if _, ok := c.Annotations[annBindCompleted]; !ok {
				metav1.SetMetaDataAnnotation(&c.ObjectMeta, annBindCompleted, "yes")
			}
		}); err != nil {
			return err
		}
	}
	// updateClaimStatus
	if cur = w.getClaim(claim.Namespace + "/" + claim.Name); cur != nil && cur.Status.Phase != v1.ClaimBound {
		return w.updateClaim(cur, func(c *v1.PersistentVolumeClaim) { c.Status.Phase = v1.ClaimBound })
	}
	return nil
}

// provision is provisionClaimOperationExternal (the claim handed to the class's provisioner:
// setClaimProvisioner), then the external provisioner's provisionClaimOperation: the PV
// pvc-<claim uid>, created pre-bound to the claim. Nothing happens for a claim without a class,
// of a class that does not exist or that nobody provisions for.
func (w *world) provision(node string, claim *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, *v1.PersistentVolume, error) {
	className := claimClass(claim)
	if className == "" {
		return claim, nil, nil
	}
	obj, err := w.tracker.Get(scGVR, "", className)
	if err != nil {
		return claim, nil, nil
	}
	sc := obj.(*storagev1.StorageClass)
	if sc.Provisioner == notSupportedProvisioner {
		return claim, nil, nil
	}
	// setClaimProvisioner (pv_controller_base.go)
	if claim.Annotations[annStorageProvisioner] != sc.Provisioner {
		if err := w.updateClaim(claim, func(c *v1.PersistentVolumeClaim) {
			metav1.SetMetaDataAnnotation(&c.ObjectMeta, annBetaStorageProvisioner, sc.Provisioner)
			metav1.SetMetaDataAnnotation(&c.ObjectMeta, annStorageProvisioner, sc.Provisioner)
		}); err != nil {
			return claim, nil, err
		}
		claim = w.getClaim(claim.Namespace + "/" + claim.Name)
	}
	name := "pvc-" + string(claim.UID) // getProvisionedVolumeNameForClaim
	if existing := w.getVolume(name); existing != nil {
		return claim, existing, nil // saveVolume's AlreadyExists
	}
	nodeObj, err := w.tracker.Get(nodesGVR, "", node)
	if err != nil {
		return claim, nil, err
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name),
			Annotations: map[string]string{annDynamicallyProvisioned: sc.Provisioner}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: claim.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:      append([]v1.PersistentVolumeAccessMode(nil), claim.Spec.AccessModes...),
			StorageClassName: className,
			VolumeMode:       claim.Spec.VolumeMode,
			ClaimRef: &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID, ResourceVersion: claim.ResourceVersion},
			NodeAffinity: w.provisionedNodeAffinity(nodeObj.(*v1.Node), sc),
			PersistentVolumeSource: v1.PersistentVolumeSource{
				CSI: &v1.CSIPersistentVolumeSource{Driver: sc.Provisioner, VolumeHandle: name}},
		},
	}
	legacyscheme.Scheme.Default(pv) // status.phase Pending, as the PV registry's PrepareForCreate
	if err := w.tracker.Create(pvGVR, pv, ""); err != nil {
		return claim, nil, err
	}
	return claim, w.getVolume(name), nil
}

// provisionedNodeAffinity is the CSI external-provisioner's accessible topology for a volume
// provisioned for node: one term with KEY In [node's value] for each topology key of the
// class's driver in the node's CSINode, in the CSINode's order, leaving out the keys the node
// has no label for; nil when there is none.
func (w *world) provisionedNodeAffinity(node *v1.Node, sc *storagev1.StorageClass) *v1.VolumeNodeAffinity {
	obj, err := w.tracker.Get(csiNodeGVR, "", node.Name)
	if err != nil {
		return nil
	}
	var reqs []v1.NodeSelectorRequirement
	for _, d := range obj.(*storagev1.CSINode).Spec.Drivers {
		if d.Name != sc.Provisioner {
			continue
		}
		for _, key := range d.TopologyKeys {
			if value, ok := node.Labels[key]; ok {
				reqs = append(reqs, v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: []string{value}})
			}
		}
		break
	}
	if len(reqs) == 0 {
		return nil
	}
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
}

// updateVolume writes fn's change to the stored PV (read fresh: the tracker answers a stale
// resourceVersion with a Conflict).
func (w *world) updateVolume(name string, fn func(*v1.PersistentVolume)) error {
	pv := w.getVolume(name)
	if pv == nil {
		return fmt.Errorf("persistent volume %s is gone", name)
	}
	fn(pv)
	return w.tracker.Update(pvGVR, pv, "")
}

// updateClaim writes fn's change to the stored claim (read fresh).
func (w *world) updateClaim(claim *v1.PersistentVolumeClaim, fn func(*v1.PersistentVolumeClaim)) error {
	cur := w.getClaim(claim.Namespace + "/" + claim.Name)
	if cur == nil {
		return fmt.Errorf("claim %s/%s is gone", claim.Namespace, claim.Name)
	}
	fn(cur)
	return w.tracker.Update(pvcGVR, cur, cur.Namespace)
}

// unchanged reports whether obj, a PV or PVC update, equals the stored object but for its
// resourceVersion and type meta: the API server then writes nothing (GuaranteedUpdate's no-op
// update: no new resourceVersion, no watch event), as the reference's binder.py _update does
// (AssumePodVolumes may set a selected-node annotation a claim already has).
func (t *rvTracker) unchanged(gvr schema.GroupVersionResource, obj runtime.Object, ns string) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	cur, err := t.ObjectTracker.Get(gvr, ns, m.GetName())
	if err != nil {
		return false
	}
	switch o := obj.(type) {
	case *v1.PersistentVolume:
		c, ok := cur.(*v1.PersistentVolume)
		if !ok {
			return false
		}
		a, b := o.DeepCopy(), c.DeepCopy()
		a.TypeMeta, b.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
		a.ResourceVersion = b.ResourceVersion
		return apiequality.Semantic.DeepEqual(a, b)
	case *v1.PersistentVolumeClaim:
		c, ok := cur.(*v1.PersistentVolumeClaim)
		if !ok {
			return false
		}
		a, b := o.DeepCopy(), c.DeepCopy()
		a.TypeMeta, b.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
		a.ResourceVersion = b.ResourceVersion
		return apiequality.Semantic.DeepEqual(a, b)
	}
	return false
}
