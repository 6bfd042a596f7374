// kube_schemas: checks rendered Kubernetes manifests against the API types the Kubernetes
// schemas are generated from, offline. Each document of each file (a multi-document YAML
// stream, as `helm template` writes it) is decoded strictly into its kind's Go type: the
// built-in kinds of client-go's scheme, and the CRDs courier's chart uses (the Prometheus
// Operator's ServiceMonitor and PrometheusRule, KEDA's ScaledObject). A field the type does not
// have, a field given twice, a value of the wrong type, or a kind none of them knows fails.
// What the objects must say beyond their types (a selector that selects the pod template, the
// probes on the admin port) is check_k8s.sh's.
//
// Usage: kube_schemas FILE...   (exit 0: every object valid; 1: the first lines name each
// invalid one; 2: usage or unreadable input)
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

func newDecoder() (runtime.Decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, monitoringv1.AddToScheme, kedav1alpha1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer(), nil
}

func checkFile(decode runtime.Decoder, path string) (objects int, problems []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objects, problems, nil
		}
		if err != nil {
			return objects, problems, fmt.Errorf("%s: %w", path, err)
		}
		json, err := utilyaml.ToJSON(doc)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: not YAML: %v", path, err))
			continue
		}
		if len(bytes.TrimSpace(json)) == 0 || string(bytes.TrimSpace(json)) == "null" {
			continue // a document of comments only (a template switched off)
		}
		var head unstructured.Unstructured
		if err := head.UnmarshalJSON(json); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		name := fmt.Sprintf("%s: %s %q", path, head.GetKind(), head.GetName())
		if _, _, err := decode.Decode(json, nil, nil); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		objects++
		fmt.Printf("kube_schemas: ok %s %s\n", head.GetAPIVersion(), name)
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kube_schemas FILE...")
		os.Exit(2)
	}
	decode, err := newDecoder()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube_schemas:", err)
		os.Exit(2)
	}
	total := 0
	var problems []string
	for _, path := range os.Args[1:] {
		n, p, err := checkFile(decode, path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kube_schemas:", err)
			os.Exit(2)
		}
		total += n
		problems = append(problems, p...)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "kube_schemas: INVALID", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	if total == 0 {
		fmt.Fprintln(os.Stderr, "kube_schemas: no object in", os.Args[1:])
		os.Exit(1)
	}
	fmt.Printf("kube_schemas: %d objects valid\n", total)
}
