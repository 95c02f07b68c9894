"""``helper.DefaultSelector`` and ``helper.GetPodServices``: the selector PodTopologySpread's
default constraints use, from the Services selecting a pod and the ReplicationController /
ReplicaSet / StatefulSet controlling it.

Upstream: ``pkg/scheduler/framework/plugins/helper/spread.go`` of k8s.io/kubernetes v1.37.2;
the rules, in upstream's order, are in ``default_selector``'s docstring and docs/reference.md.
"""

from __future__ import annotations

from reference_impl.api.labels import Selector, compile_selector, selector_from_set
from reference_impl.model.controllers import Controllers
from reference_impl.model.objects import OwnerReference, Pod, Service

#: the (apiVersion, kind) of the controllers DefaultSelector reads (rcKind, rsKind, ssKind)
RC_KIND = ("v1", "ReplicationController")
RS_KIND = ("apps/v1", "ReplicaSet")
SS_KIND = ("apps/v1", "StatefulSet")


def get_pod_services(controllers: Controllers, pod: Pod) -> list[Service]:
    """``GetPodServices``: the Services of the pod's namespace whose (non-nil) selector matches
    the pod's labels, in lister order."""
    return [s for s in controllers.services(pod.namespace)
            if s.selector is not None and selector_from_set(s.selector).matches(pod.labels)]


def controller_of(pod: Pod) -> OwnerReference | None:
    """``metav1.GetControllerOfNoCopy``: the first owner reference with ``controller: true``."""
    return next((o for o in pod.owner_references if o.controller), None)


def default_selector(pod: Pod, controllers: Controllers) -> Selector:
    """``DefaultSelector``:

    1. the selectors of the pod's namespace's Services whose selector matches the pod's labels
       are merged into one label set (a Service without selector selects nothing), which
       becomes the selector (``labels.Set.AsSelector``: every key equal to its value);
    2. the pod's controller (the first ownerReference with ``controller: true``,
       ``metav1.GetControllerOfNoCopy``) is looked up by name in the pod's namespace, by its
       exact group/version/kind: a ``v1`` ReplicationController merges its selector into the
       label set (its values win) and the selector is rebuilt from it; an ``apps/v1``
       ReplicaSet or StatefulSet adds its selector's requirements (a nil selector, which
       selects nothing, adds none; an invalid one is skipped). An owner that is missing, of
       another kind, or of another apiVersion changes nothing; the owner's uid is not
       compared.
    """
    label_set: dict[str, str] = {}
    for service in get_pod_services(controllers, pod):
        label_set.update(service.selector or {})  # labels.Merge: the later map wins
    selector = selector_from_set(label_set)

    owner = controller_of(pod)
    if owner is None:
        return selector
    gvk = (owner.api_version, owner.kind)
    if gvk == RC_KIND:
        rc = controllers.replication_controller(pod.namespace, owner.name)
        if rc is not None:
            label_set.update(rc.selector)
            selector = selector_from_set(label_set)
    elif gvk in (RS_KIND, SS_KIND):
        ctrl = (controllers.replica_set if gvk == RS_KIND
                else controllers.stateful_set)(pod.namespace, owner.name)
        if ctrl is not None:
            try:
                other = compile_selector(ctrl.selector)
            except ValueError:  # LabelSelectorAsSelector failed: nothing added
                return selector
            if not other.nothing:  # Requirements() of labels.Nothing() is (nil, false)
                selector = Selector(tuple(sorted(selector.requirements + other.requirements,
                                                 key=lambda r: r[0])))
    return selector
