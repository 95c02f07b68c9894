"""What the launchers that start their own components (``process``, ``docker``) share: the
API server's and the scheduler's flags, the scheduler's configuration, kubeconfig documents and
the scheduler's metrics page.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conformance.backends.certs import CertBundle
from reference_impl.releases.pinned import UPSTREAM_RELEASE

SCHED_CONFIG_API = "kubescheduler.config.k8s.io/v1"

#: Admission plugins on by default in the pinned release that would change or refuse the
#: scenario's objects: ServiceAccount (no service accounts exist), TaintNodesByCondition (adds
#: node.kubernetes.io/not-ready to new nodes), DefaultTolerationSeconds (adds tolerations),
#: Priority (the driver writes the priority the reference resolved, explicit ones included),
#: RuntimeClass (refuses spec.overhead without a RuntimeClass), LimitRanger, ResourceQuota,
#: PodSecurity, PodTopologyLabels and the rest of the defaults that have nothing to do here.
DISABLED_ADMISSION = (
    "ServiceAccount", "TaintNodesByCondition", "DefaultTolerationSeconds", "Priority",
    "RuntimeClass", "LimitRanger", "ResourceQuota", "PodSecurity", "PodTopologyLabels",
    "DefaultStorageClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize",
    "PodGroupProtection", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook",
    "MutatingAdmissionPolicy", "ValidatingAdmissionPolicy", "CertificateApproval",
    "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction",
    "DefaultIngressClass", "NodeDeclaredFeatureValidator", "PodResizeValidator",
)
#: The plugins of :data:`DISABLED_ADMISSION` that an older release does not register, with the
#: first minor that does (``AllOrderedPlugins``, pkg/kubeapiserver/options/plugins.go of each
#: release): kube-apiserver refuses an unknown name in ``--disable-admission-plugins``
#: ("disable-admission-plugins plugin %q is unknown", staging/src/k8s.io/apiserver/pkg/server/
#: options/admission.go ``Validate``). v1.36 alone also turns on PodGroupWorkloadExists and
#: JobValidation, which judge PodGroup and Job objects only (none is created): they stay on.
ADMISSION_SINCE_MINOR = {"NodeDeclaredFeatureValidator": 35, "PodGroupProtection": 36,
                         "PodResizeValidator": 36}


def release_minor(release: str) -> int:
    """``34`` for ``v1.34.4``."""
    m = re.fullmatch(r"v1\.(\d+)\.\d+", release)
    if m is None:
        raise ValueError(f"not a release tag: {release!r} (e.g. v1.34.4)")
    return int(m.group(1))


def disabled_admission(release: str = UPSTREAM_RELEASE,
                       keep_on: Sequence[str] = ()) -> tuple[str, ...]:
    """:data:`DISABLED_ADMISSION` without the plugins ``release`` does not register and
    without ``keep_on`` (plugins left on, e.g. Priority for a control plane that stands for a
    user's cluster)."""
    unknown = sorted(set(keep_on) - set(DISABLED_ADMISSION))
    if unknown:
        raise ValueError(f"not a disabled admission plugin: {', '.join(unknown)}")
    minor = release_minor(release)
    return tuple(p for p in DISABLED_ADMISSION
                 if ADMISSION_SINCE_MINOR.get(p, 0) <= minor and p not in keep_on)


SERVICE_CIDR = "10.0.0.0/24"  # required by kube-apiserver; no traffic ever goes there
#: client-go's streaming lists replay an informer's initial state from a map (random order):
#: the scheduler would receive the nodes (whose order decides equal scores) and the pending
#: pods (whose order decides the queue among equal priorities) shuffled. With plain LIST
#: requests it receives them in the API server's key order, which the driver controls. Only
#: how the informers load their first state changes; nothing of scheduling. The gate is
#: client-go's (staging/src/k8s.io/client-go/features/known_features.go), known to
#: kube-scheduler's ``--feature-gates`` in every supported release (pkg/features/
#: kube_features.go and client_adapter.go add client-go's gates to the component's; v1.34.4
#: has it as a beta gate, off by default).
SCHEDULER_FEATURE_GATES = "WatchListClient=false"
#: Verbosity 3 logs the start of every scheduling cycle, which orders the attempts the API
#: shows (``scheduler_log.py``).
SCHEDULER_VERBOSITY = 3


#: kube-controller-manager runs the resourceclaim controller alone
#: (``names.ResourceClaimController``,
#: cmd/kube-controller-manager/names/controller_names.go; its descriptor in app/resource.go): it
#: creates the claims of pods' ResourceClaimTemplates and releases a claim when its pod is
#: deleted or done (``syncClaim``, pkg/controller/resourceclaim/controller.go; docs/backends.md)
CLAIM_CONTROLLER = "resourceclaim-controller"
#: the log line ``WaitForNamedCacheSync`` writes once the controller's informers are synced
#: (client-go tools/cache/shared_informer.go), after "Starting resource claim controller"
CONTROLLER_STARTED = "Starting resource claim controller"
CONTROLLER_SYNCED = "Caches are synced"
#: the controller's work queue (``Name: "resource_claim"``, controller.go)
CLAIM_QUEUE = "resource_claim"


def controller_args(kubeconfig: str, *, port: int, bind: str, cert: str, key: str
                    ) -> list[str]:
    """kube-controller-manager's flags (without the binary): the resourceclaim controller alone,
    with the scheduler's kubeconfig (the run's ``system:masters`` client certificate, no
    service-account credentials), leader election off, a high client QPS, and its metrics
    and health served like the scheduler's."""
    return [f"--kubeconfig={kubeconfig}", f"--controllers={CLAIM_CONTROLLER}",
            "--leader-elect=false", "--kube-api-qps=5000", "--kube-api-burst=10000",
            f"--bind-address={bind}", f"--secure-port={port}",
            f"--tls-cert-file={cert}", f"--tls-private-key-file={key}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--authentication-tolerate-lookup-failure",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics", "--v=2"]


def controller_synced(log: str) -> bool:
    """The resourceclaim controller's informers are synced (its log)."""
    at = log.find(CONTROLLER_STARTED)
    return at >= 0 and CONTROLLER_SYNCED in log[at:]


def claim_queue_work(text: str) -> float:
    """Items the resourceclaim controller has queued or is working on, from
    kube-controller-manager's metrics page (``workqueue_depth`` and, while an item is being
    processed, ``workqueue_unfinished_work_seconds`` above 0: k8s.io/component-base's
    workqueue metrics)."""
    depth = parse_metrics(text, "workqueue_depth", "name").get(CLAIM_QUEUE, 0.0)
    busy = parse_metrics(text, "workqueue_unfinished_work_seconds", "name").get(CLAIM_QUEUE,
                                                                                0.0)
    return depth + (1.0 if busy > 0 else 0.0)


def scheduler_config(config: Mapping[str, Any] | None, kubeconfig: str, *,
                     parallelism: int | None = 1, qps: float = 5000.0,
                     burst: int = 10000) -> dict[str, Any]:
    """The KubeSchedulerConfiguration kube-scheduler runs with: the scenario's (or the
    release's defaults), with the connection to our API server, leader election off,
    ``parallelism`` (1 unless None: the nodes a pod is checked against are then examined in a
    fixed order, as in the reference) and a high client QPS (bindings are API calls)."""
    doc: dict[str, Any] = copy.deepcopy(dict(config)) if config else {
        "apiVersion": SCHED_CONFIG_API, "kind": "KubeSchedulerConfiguration"}
    doc.setdefault("apiVersion", SCHED_CONFIG_API)
    doc.setdefault("kind", "KubeSchedulerConfiguration")
    cc = dict(doc.get("clientConnection") or {})
    cc.update({"kubeconfig": kubeconfig, "qps": qps, "burst": burst})
    doc["clientConnection"] = cc
    doc["leaderElection"] = {"leaderElect": False}
    if parallelism is not None:
        doc["parallelism"] = parallelism
    return doc


def parse_metrics(text: str, name: str = "scheduler_pending_pods",
                  label: str = "queue", **match: str) -> dict[str, float]:
    """``name{label="X",...} value`` lines of a Prometheus text page → {X: value}, summed over
    the other labels; ``match`` keeps only the lines whose labels have those values."""
    out: dict[str, float] = {}
    pat = re.compile(rf'^{re.escape(name)}\{{([^}}]*)\}}\s+(\S+)')
    for line in text.splitlines():
        m = pat.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if any(labels.get(k) != v for k, v in match.items()):
            continue
        try:
            value = float(m.group(2))
        except ValueError:
            continue
        key = labels.get(label, "")
        out[key] = out.get(key, 0.0) + value
    return out


@dataclass(frozen=True, slots=True)
class SchedulerState:
    """What kube-scheduler's metrics page says about the work it has left
    (pkg/scheduler/metrics/metrics.go of the pinned release)."""

    #: ``scheduler_pending_pods`` by queue (active, backoff, unschedulable, gated, ...)
    queues: dict[str, float] = field(default_factory=dict)
    #: ``scheduler_goroutines{operation="binding"}``: binding cycles running
    #: (``runBindingCycle``, pkg/scheduler/schedule_one.go); their pods left the queue but the
    #: API does not show them bound yet
    bindings_in_flight: float = 0.0
    #: ``scheduler_pending_async_api_calls``, all call types (SchedulerAsyncAPICalls)
    api_calls_pending: float = 0.0
    #: ``scheduler_schedule_attempts_total{result="scheduled"}``, all profiles: bindings the
    #: API server accepted (counted after ``bind`` returns, ``bindingCycle``)
    scheduled: float = 0.0
    #: :func:`claim_queue_work` of the resourceclaim controller when it runs
    claim_controller_work: float = 0.0

    def busy(self) -> list[str]:
        """What the scheduler still has to do, in words (empty: nothing)."""
        out = [f"{self.queues[q]:g} pod(s) in the {q} queue" for q in ("active", "backoff")
               if self.queues.get(q, 0.0) > 0]
        if self.bindings_in_flight > 0:
            out.append(f"{self.bindings_in_flight:g} binding(s) in flight")
        if self.api_calls_pending > 0:
            out.append(f"{self.api_calls_pending:g} API call(s) pending")
        if self.claim_controller_work > 0:
            out.append(f"{self.claim_controller_work:g} claim(s) queued in the resourceclaim "
                       "controller")
        return out


def parse_scheduler_state(text: str) -> SchedulerState | None:
    """The :class:`SchedulerState` of a kube-scheduler metrics page; None when the page has no
    ``scheduler_pending_pods{queue="active"}`` gauge (not the scheduler's page, or cut)."""
    queues = parse_metrics(text)
    if "active" not in queues:
        return None
    return SchedulerState(
        queues=queues,
        bindings_in_flight=parse_metrics(text, "scheduler_goroutines", "operation").get(
            "binding", 0.0),
        api_calls_pending=sum(parse_metrics(text, "scheduler_pending_async_api_calls",
                                            "call_type").values()),
        scheduled=parse_metrics(text, "scheduler_schedule_attempts_total", "result").get(
            "scheduled", 0.0))


def kubeconfig_doc(server: str, *, ca_cert: str, client_cert: str,
                   client_key: str) -> dict[str, Any]:
    """A kubeconfig for ``server`` authenticating with the run's client certificate (the
    paths as the reader of the kubeconfig sees them)."""
    return {
        "apiVersion": "v1", "kind": "Config", "current-context": "kschedconf",
        "clusters": [{"name": "kschedconf", "cluster": {
            "server": server, "certificate-authority": ca_cert}}],
        "users": [{"name": "kschedconf-admin", "user": {
            "client-certificate": client_cert, "client-key": client_key}}],
        "contexts": [{"name": "kschedconf", "context": {"cluster": "kschedconf",
                                                         "user": "kschedconf-admin"}}],
    }


def write_kubeconfig(path: Path, server: str, certs: CertBundle) -> None:
    """A kubeconfig file for ``server`` with the certificates of ``certs`` (mode 0600)."""
    doc = kubeconfig_doc(server, ca_cert=str(certs.ca_cert),
                         client_cert=str(certs.client_cert), client_key=str(certs.client_key))
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    os.chmod(path, 0o600)


#: ``GET url`` of a component's metrics: (status, body); OSError or SSLError when unreachable
MetricsGet = Callable[[str], tuple[int, str]]


def read_metrics(get: MetricsGet, url: str, parse: Callable[[str], Any]) -> Any | None:
    """``parse`` of the metrics at ``url``; None when they cannot be read."""
    try:
        status, body = get(url)
    except (OSError, ssl.SSLError):
        return None
    return parse(body) if status == 200 else None


def read_scheduler_state(get: MetricsGet, scheduler_url: str,
                         controller_url: str | None) -> SchedulerState | None:
    """The running kube-scheduler's :class:`SchedulerState` with the work left in the
    resourceclaim controller's queue (0 without a controller, ``controller_url`` None); None
    when either cannot be read."""
    state = read_metrics(get, scheduler_url, parse_scheduler_state)
    work = 0.0 if controller_url is None else read_metrics(get, controller_url,
                                                           claim_queue_work)
    if state is None or work is None:
        return None
    return dataclasses.replace(state, claim_controller_work=work)
