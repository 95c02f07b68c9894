package main

// metadata.generateName for the fake API server. client-go's object tracker stores an object
// under its metadata.name and ignores generateName, so a second create of an object that has
// only a generateName fails with "already exists". The real API server fills the name with
// names.SimpleNameGenerator (staging/src/k8s.io/apiserver/pkg/storage/names/generate.go): the
// base cut to 58 characters and five random characters of utilrand's alphanums. We draw the
// five characters from the same alphabet but derive them from a key, exactly as the Python
// reference does (reference_impl/model/generated_names.py), so both name the objects they
// create the same way: the key is "<Kind>/<namespace>/<n>", n counting the objects of that
// kind, namespace and base created before, skipping names already taken.
//
// The scheduler creates objects with generateName in one place: DynamicResources' PreBind
// creates the ResourceClaim of a pod's extended resources backed by DRA
// (pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go
// createExtendedResourceClaimInAPI).

import (
	"crypto/sha256"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

const (
	generatedAlphanums     = "bcdfghjklmnpqrstvwxz2456789"
	generatedRandomLength  = 5
	generatedMaxBaseLength = 63 - generatedRandomLength
)

// generateName is generated_names.generate_name: the base cut to 58 characters, then five
// characters of the alphabet chosen by the first bytes of sha256(base + "\x00" + key), of
// the whole base.
func generateName(base, key string) string {
	sum := sha256.Sum256([]byte(base + "\x00" + key))
	if len(base) > generatedMaxBaseLength {
		base = base[:generatedMaxBaseLength]
	}
	out := []byte(base)
	for _, b := range sum[:generatedRandomLength] {
		out = append(out, generatedAlphanums[int(b)%len(generatedAlphanums)])
	}
	return string(out)
}

// claimCreateReactor gives a ResourceClaim created with only metadata.generateName its name
// (generateName above) and a uid, then stores it like the tracker would.
func (w *world) claimCreateReactor(action clienttesting.Action) (bool, runtime.Object, error) {
	ca, ok := action.(clienttesting.CreateAction)
	if !ok || ca.GetSubresource() != "" {
		return false, nil, nil
	}
	claim, ok := ca.GetObject().(*resourceapi.ResourceClaim)
	if !ok || claim.Name != "" || claim.GenerateName == "" {
		return false, nil, nil
	}
	claim = claim.DeepCopy()
	ns := ca.GetNamespace()
	if ns == "" {
		ns = claim.Namespace
	}
	claim.Namespace = ns
	w.mu.Lock()
	counter := "ResourceClaim\x00" + ns + "\x00" + claim.GenerateName
	n := w.generated[counter]
	w.generated[counter] = n + 1
	w.mu.Unlock()
	base := claim.GenerateName
	for {
		claim.Name = generateName(base, fmt.Sprintf("ResourceClaim/%s/%d", ns, n))
		if _, err := w.tracker.Get(claimsGVR, ns, claim.Name); apierrors.IsNotFound(err) {
			break
		}
		n++
	}
	claim.UID = types.UID(generatedUID(ns, claim.Name))
	if err := w.tracker.Create(claimsGVR, claim, ns); err != nil {
		return true, nil, err
	}
	obj, err := w.tracker.Get(claimsGVR, ns, claim.Name)
	return true, obj, err
}

// generatedUID is the uid of an object the scheduler created (generated_names.generated_uid).
func generatedUID(namespace, name string) string {
	sum := sha256.Sum256([]byte("uid\x00" + namespace + "\x00" + name))
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}
