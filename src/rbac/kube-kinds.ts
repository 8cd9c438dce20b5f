// The names of Kubernetes' built-in API resources, so that a kube_resources rule written with a kind
// the URL never carries (`pod`, `Pod`, `po`) is refused when the role is written, with the name to
// use, instead of being stored and silently matching nothing. Custom resources' plurals are not
// known here (they come from each cluster's discovery) and are accepted as written.

/** Built-in resource (as in the URL) = its singular and short names, which the URL never carries. */
const BUILTIN = `
pods=pod/po services=service/svc endpoints=endpoint/ep configmaps=configmap/cm secrets=secret
serviceaccounts=serviceaccount/sa persistentvolumeclaims=persistentvolumeclaim/pvc
persistentvolumes=persistentvolume/pv namespaces=namespace/ns nodes=node/no events=event/ev
limitranges=limitrange/limits resourcequotas=resourcequota/quota
replicationcontrollers=replicationcontroller/rc podtemplates=podtemplate
deployments=deployment/deploy replicasets=replicaset/rs statefulsets=statefulset/sts
daemonsets=daemonset/ds controllerrevisions=controllerrevision jobs=job cronjobs=cronjob/cj
horizontalpodautoscalers=horizontalpodautoscaler/hpa
poddisruptionbudgets=poddisruptionbudget/pdb ingresses=ingress/ing ingressclasses=ingressclass
networkpolicies=networkpolicy/netpol roles=role rolebindings=rolebinding
clusterroles=clusterrole clusterrolebindings=clusterrolebinding storageclasses=storageclass/sc
csidrivers=csidriver csinodes=csinode volumeattachments=volumeattachment leases=lease
endpointslices=endpointslice priorityclasses=priorityclass/pc runtimeclasses=runtimeclass
customresourcedefinitions=customresourcedefinition/crd/crds
certificatesigningrequests=certificatesigningrequest/csr
mutatingwebhookconfigurations=mutatingwebhookconfiguration
validatingwebhookconfigurations=validatingwebhookconfiguration
`
  .split(/\s+/)
  .filter(Boolean)
  .map((entry) => entry.split('=') as [string, string]);

const MISNAMED = new Map<string, string>(
  BUILTIN.flatMap(([plural, others]) => others.split('/').map((o) => [o, plural] as const)),
);

/** The resource name to write instead of `kind`, when `kind` is a built-in's singular or short name. */
export const kubeKindCorrection = (kind: string): string | undefined => MISNAMED.get(kind.toLowerCase());

export const BUILTIN_KUBE_KINDS: readonly string[] = BUILTIN.map(([plural]) => plural);
