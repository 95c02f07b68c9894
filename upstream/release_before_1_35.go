//go:build k8s_before_1_35

package main

// Before v1.35 the framework's plugin-facing types are in k8s.io/kubernetes/pkg/scheduler/
// framework (pkg/scheduler/framework/interface.go of v1.34); kubernetes/kubernetes#133172 moved
// them to k8s.io/kube-scheduler/framework. There is no SharedCSIManager (no WithSharedCSIManager
// in pkg/scheduler/framework/runtime/framework.go of v1.34). The newer releases:
// release_since_1_35.go.

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

type (
	fwkPlugin          = framework.Plugin
	fwkHandle          = framework.Handle
	preFilterPlugin    = framework.PreFilterPlugin
	filterPlugin       = framework.FilterPlugin
	nodePluginScores   = framework.NodePluginScores
	nominatingInfo     = framework.NominatingInfo
	nodeToStatusReader = framework.NodeToStatusReader
	postFilterResult   = framework.PostFilterResult
	nodeInfoLister     = framework.NodeInfoLister
	scorePlugin        = framework.ScorePlugin
)

const modeOverride = framework.ModeOverride

// v1.34 has no OpportunisticBatching (no pkg/scheduler/framework/runtime/batch.go): batchage.go
// has nothing to do.
const hasOpportunisticBatching = false

// v1.34 deletes every victim, a terminating one too (prepareCandidate and prepareCandidateAsync
// in pkg/scheduler/framework/preemption/preemption.go of v1.34 have no DeletionTimestamp check).
const skipsTerminatingVictims = false

// csiFrameworkOptions: none before v1.35.
func csiFrameworkOptions(framework.Framework) []frameworkruntime.Option { return nil }

// podGroupFrameworkOptions: no workload or pod group manager before v1.35.
func podGroupFrameworkOptions(framework.Framework) []frameworkruntime.Option { return nil }

// factory wraps f (explain_handlers.go): the PersistentVolumeClaim and PersistentVolume informers it hands out
// record the handlers added to them.
func (t *handlerTracker) factory(f informers.SharedInformerFactory) informers.SharedInformerFactory {
	return trackingFactory{f, t}
}

type trackingFactory struct {
	informers.SharedInformerFactory
	t *handlerTracker
}

func (f trackingFactory) Core() core.Interface {
	return trackingCore{f.SharedInformerFactory.Core(), f.t}
}

type trackingCore struct {
	core.Interface
	t *handlerTracker
}

func (c trackingCore) V1() corev1informers.Interface { return trackingCoreV1{c.Interface.V1(), c.t} }

type trackingCoreV1 struct {
	corev1informers.Interface
	t *handlerTracker
}

func (v trackingCoreV1) PersistentVolumeClaims() corev1informers.PersistentVolumeClaimInformer {
	return trackingPVCInformer{v.Interface.PersistentVolumeClaims(), v.t}
}

func (v trackingCoreV1) PersistentVolumes() corev1informers.PersistentVolumeInformer {
	return trackingPVInformer{v.Interface.PersistentVolumes(), v.t}
}

type trackingPVCInformer struct {
	corev1informers.PersistentVolumeClaimInformer
	t *handlerTracker
}

func (i trackingPVCInformer) Informer() cache.SharedIndexInformer {
	return trackedInformer{i.PersistentVolumeClaimInformer.Informer(), i.t}
}

type trackingPVInformer struct {
	corev1informers.PersistentVolumeInformer
	t *handlerTracker
}

func (i trackingPVInformer) Informer() cache.SharedIndexInformer {
	return trackedInformer{i.PersistentVolumeInformer.Informer(), i.t}
}

type trackedInformer struct {
	cache.SharedIndexInformer
	t *handlerTracker
}

func (i trackedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	r, err := i.SharedIndexInformer.AddEventHandler(h)
	if err == nil {
		i.t.add(r)
	}
	return r, err
}
