package main

// The KubeSchedulerConfiguration: decoded, defaulted and validated by upstream's own scheme
// (pkg/scheduler/apis/config/scheme, .../validation), as kube-scheduler does with --config.

import (
	"fmt"
	"sync"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

const defaultConfigDoc = `{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}`

// loadConfig decodes a KubeSchedulerConfiguration (YAML or JSON); nil data means the default
// configuration of the release (the default profile "default-scheduler"). Each call returns a
// configuration of its own (a deep copy of the memoized one: configs).
func loadConfig(data []byte) (*schedconfig.KubeSchedulerConfiguration, error) {
	if data == nil {
		data = []byte(defaultConfigDoc)
	}
	configsMu.Lock()
	cfg, ok := configs[string(data)]
	configsMu.Unlock()
	if ok {
		return cfg.DeepCopy(), nil
	}
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("scheduler configuration: %v", err)
	}
	cfg, ok = obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("scheduler configuration: got %v, want a KubeSchedulerConfiguration", gvk)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, fmt.Errorf("scheduler configuration: %v", err)
	}
	if len(cfg.Extenders) > 0 {
		return nil, fmt.Errorf("scheduler configuration: extenders are not supported by the upstream subject (they are HTTP services)")
	}
	configsMu.Lock()
	if len(configs) >= configsSize {
		clear(configs)
	}
	configs[string(data)] = cfg.DeepCopy()
	configsMu.Unlock()
	return cfg, nil
}

// configs memoizes loadConfig's valid configurations by their document: decoding, defaulting
// and validating is a pure function of it, and serve is asked the same few configurations
// (the differential: every request of a scenario has its configuration). At most configsSize.
var (
	configsMu sync.Mutex
	configs   = map[string]*schedconfig.KubeSchedulerConfiguration{}
)

const configsSize = 256
