package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// manifests holds the decoded objects of kubernetes/*.yaml by kind.
type manifests struct {
	deployments []appsv1.Deployment
	services    []corev1.Service
	hpas        []autoscalingv2.HorizontalPodAutoscaler
	pvcs        []corev1.PersistentVolumeClaim
	kustomized  []string // resources listed by kustomization.yaml
	files       []string // every manifest file other than the kustomization
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type kustomization struct {
	typeMeta
	Resources []string `json:"resources"`
}

func loadManifests(t *testing.T, dir string) *manifests {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests under %s (%v)", dir, err)
	}
	m := &manifests{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range splitDocuments(b) {
			if err := m.add(filepath.Base(p), doc); err != nil {
				t.Errorf("%s document %d: %v", p, i, err)
			}
		}
	}
	return m
}

// splitDocuments cuts a YAML stream at its "---" separators, dropping empty
// documents.
func splitDocuments(b []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(b, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(d))) > 0 {
			docs = append(docs, d)
		}
	}
	return docs
}

func stripComments(b []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// add decodes one document strictly into the type its apiVersion and kind
// name: unknown fields, wrong types and unexpected kinds are errors.
func (m *manifests) add(file string, doc []byte) error {
	var tm typeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		return decodeInto(doc, &m.deployments, file, &m.files)
	case "v1 Service":
		return decodeInto(doc, &m.services, file, &m.files)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		return decodeInto(doc, &m.hpas, file, &m.files)
	case "v1 PersistentVolumeClaim":
		return decodeInto(doc, &m.pvcs, file, &m.files)
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		var k kustomization
		if err := yaml.UnmarshalStrict(doc, &k); err != nil {
			return err
		}
		m.kustomized = append(m.kustomized, k.Resources...)
		return nil
	}
	return fmt.Errorf("unexpected apiVersion %q kind %q", tm.APIVersion, tm.Kind)
}

func decodeInto[T any](doc []byte, list *[]T, file string, files *[]string) error {
	var v T
	if err := yaml.UnmarshalStrict(doc, &v); err != nil {
		return err
	}
	*list = append(*list, v)
	*files = append(*files, file)
	return nil
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := loadManifests(t, "kubernetes")
	if len(m.deployments) != 1 || len(m.services) != 1 || len(m.hpas) != 1 || len(m.pvcs) != 1 {
		t.Fatalf("want one Deployment, Service, HPA and PVC; got %d, %d, %d, %d",
			len(m.deployments), len(m.services), len(m.hpas), len(m.pvcs))
	}
	for _, f := range m.files {
		if !contains(m.kustomized, f) {
			t.Errorf("%s is not listed in kustomization.yaml", f)
		}
	}
}

// TestManifestsAgree checks what the API types cannot: that the objects fit
// together and follow the deployment guide.
func TestManifestsAgree(t *testing.T) {
	m := loadManifests(t, "kubernetes")
	d, svc, hpa := m.deployments[0], m.services[0], m.hpas[0]
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	checkProbes(t, c)
	checkPorts(t, c, svc)
	checkSelector(t, d, svc)
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != d.Name {
		t.Errorf("HPA targets %s/%s, want Deployment/%s", hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name, d.Name)
	}
	if a := d.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("pod template lacks the Prometheus scrape annotations: %v", a)
	}
	if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("pods must run as non-root")
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Error("the container must request CPU and memory (docs/deploy.md sizes them from the model)")
	}
	if !strings.Contains(strings.Join(c.Args, " "), "--host=0.0.0.0") {
		t.Error("waggle serve listens on 127.0.0.1 unless told --host=0.0.0.0")
	}
}

func checkProbes(t *testing.T, c corev1.Container) {
	t.Helper()
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe, "startup": c.StartupProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/health" {
			t.Errorf("%s probe must GET /health", name)
		}
	}
}

func checkPorts(t *testing.T, c corev1.Container, svc corev1.Service) {
	t.Helper()
	exposed := map[string]bool{}
	for _, p := range c.Ports {
		exposed[p.Name] = true
		exposed[fmt.Sprint(p.ContainerPort)] = true
	}
	for _, p := range svc.Spec.Ports {
		if !exposed[p.TargetPort.String()] {
			t.Errorf("service port %d targets %q, which the container does not expose", p.Port, p.TargetPort.String())
		}
	}
}

func checkSelector(t *testing.T, d appsv1.Deployment, svc corev1.Service) {
	t.Helper()
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("service selects %s=%s, pods are labelled %v", k, v, d.Spec.Template.Labels)
		}
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("deployment selects %s=%s, its pods are labelled %v", k, v, d.Spec.Template.Labels)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
