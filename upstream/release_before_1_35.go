//go:build k8s_before_1_35

package main

// Before v1.35 the framework's plugin-facing types are in k8s.io/kubernetes/pkg/scheduler/
// framework (pkg/scheduler/framework/interface.go of v1.34); kubernetes/kubernetes#133172 moved
// them to k8s.io/kube-scheduler/framework. There is no SharedCSIManager (no WithSharedCSIManager
// in pkg/scheduler/framework/runtime/framework.go of v1.34). The newer releases:
// release_since_1_35.go.

import (
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

// csiFrameworkOptions: none before v1.35.
func csiFrameworkOptions(framework.Framework) []frameworkruntime.Option { return nil }

// podGroupFrameworkOptions: no workload or pod group manager before v1.35.
func podGroupFrameworkOptions(framework.Framework) []frameworkruntime.Option { return nil }
