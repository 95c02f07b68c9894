//go:build !k8s_before_1_35

package main

// Since v1.35 the framework's plugin-facing types live in the staging module
// k8s.io/kube-scheduler/framework (kubernetes/kubernetes#133172, "Moved Types in
// k/k/pkg/scheduler/framework ... to package k8s.io/kube-scheduler/framework" in
// CHANGELOG-1.35.md); the framework takes a SharedCSIManager (pkg/scheduler/framework/runtime/
// framework.go WithSharedCSIManager, new in v1.35). The older releases: release_before_1_35.go.

import (
	"k8s.io/client-go/informers"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

type (
	fwkPlugin          = fwk.Plugin
	fwkHandle          = fwk.Handle
	preFilterPlugin    = fwk.PreFilterPlugin
	filterPlugin       = fwk.FilterPlugin
	nodePluginScores   = fwk.NodePluginScores
	nominatingInfo     = fwk.NominatingInfo
	nodeToStatusReader = fwk.NodeToStatusReader
	postFilterResult   = fwk.PostFilterResult
	nodeInfoLister     = fwk.NodeInfoLister
	scorePlugin        = fwk.ScorePlugin
)

const modeOverride = fwk.ModeOverride

// OpportunisticBatching (pkg/scheduler/framework/runtime/batch.go) exists since v1.35
// (kubernetes/kubernetes#135231): batchage.go keeps its age on the virtual clock.
const hasOpportunisticBatching = true

// Since v1.35 a victim whose graceful deletion has started gets no API call (prepareCandidate
// and prepareCandidateAsync in pkg/scheduler/framework/preemption/preemption.go).
const skipsTerminatingVictims = true

// csiFrameworkOptions shares the scheduler's CSI manager with explain's framework.
func csiFrameworkOptions(h framework.Framework) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithSharedCSIManager(h.SharedCSIManager())}
}

// factory: f as is. The volume binding assume caches read the informers' stores
// (pkg/scheduler/framework/plugins/volumebinding/passive_assume_cache.go) and add no handler
// (explain_handlers.go).
func (t *handlerTracker) factory(f informers.SharedInformerFactory) informers.SharedInformerFactory {
	return f
}
