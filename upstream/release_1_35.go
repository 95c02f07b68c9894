//go:build !k8s_before_1_35 && k8s_before_1_36

package main

// v1.35 only: the framework takes a WorkloadManager (pkg/scheduler/framework/runtime/
// framework.go WithWorkloadManager, for the alpha GangScheduling plugin); v1.36 replaced it by
// the PodGroupManager (release_since_1_36.go).

import (
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// podGroupFrameworkOptions shares the scheduler's workload manager with explain's framework.
func podGroupFrameworkOptions(h framework.Framework) []frameworkruntime.Option {
	return []frameworkruntime.Option{frameworkruntime.WithWorkloadManager(h.WorkloadManager())}
}
