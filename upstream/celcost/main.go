// Command celcost prints the worst-case cost estimate (MaxCost) the API server computes for
// DRA device selectors: CompileCELExpression of k8s.io/dynamic-resource-allocation/cel with
// the NewExpressions environment and DRAConsumableCapacity on, as validateCELExpression
// (k8s.io/kubernetes pkg/apis/resource/validation) calls it. It reads one JSON string per
// line on stdin and writes one line per expression: the MaxCost, or "ERR" and the
// compilation error. With -list-type-attributes, DRAListTypeAttributes is on too.
//
// With -actual, each line is a JSON object {"expression": ..., "device": {"driver", "attributes",
// "capacity", "allowMultipleAllocations"}} (resource.k8s.io/v1's JSON of the attribute and
// capacity values), compiled as the scheduler compiles it (the StoredExpressions environment,
// the runtime cost limit CELSelectorExpressionMaxCost or -cost-limit) and evaluated with
// DeviceMatches: the line is "<actual cost> <matches>" or "<actual cost> ERR" and the
// evaluation error quoted ("-" for a cost cel-go did not report).
//
// upstream/build.sh builds it as upstream/bin/kschedconf-celcost (with the pinned release);
// tests/dra/test_dra_cel_cost.py compares dra/cel_cost.py with it.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"context"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

func main() {
	listType := flag.Bool("list-type-attributes", false, "enable DRAListTypeAttributes")
	actual := flag.Bool("actual", false, "evaluate {expression, device} lines; print the actual cost")
	costLimit := flag.Uint64("cost-limit", 0, "with -actual: the runtime cost limit (0: upstream's)")
	flag.Parse()
	compiler := dracel.GetCompiler(dracel.Features{
		EnableConsumableCapacity: true,
		EnableListTypeAttributes: *listType,
	})
	envType := environment.NewExpressions
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		if *actual {
			evaluate(compiler, in.Bytes(), *costLimit, out)
			continue
		}
		var expression string
		if err := json.Unmarshal(in.Bytes(), &expression); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		result := compiler.CompileCELExpression(expression, dracel.Options{EnvType: &envType})
		if result.Error != nil {
			fmt.Fprintf(out, "ERR %q\n", result.Error.Detail)
		} else {
			fmt.Fprintf(out, "%d\n", result.MaxCost)
		}
	}
}

// evaluate compiles and evaluates one {expression, device} line as the scheduler's allocator
// does (selectorsMatch: CompileCELExpression with the default StoredExpressions environment,
// then DeviceMatches) and writes the actual cost and the outcome.
func evaluate(compiler interface {
	CompileCELExpression(string, dracel.Options) dracel.CompilationResult
}, line []byte, costLimit uint64, out *bufio.Writer) {
	var input struct {
		Expression string `json:"expression"`
		Device     struct {
			Driver                   string                                                    `json:"driver"`
			AllowMultipleAllocations *bool                                                     `json:"allowMultipleAllocations"`
			Attributes               map[resourceapi.QualifiedName]resourceapi.DeviceAttribute `json:"attributes"`
			Capacity                 map[resourceapi.QualifiedName]resourceapi.DeviceCapacity  `json:"capacity"`
		} `json:"device"`
	}
	if err := json.Unmarshal(line, &input); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	options := dracel.Options{DisableCostEstimation: true}
	if costLimit != 0 {
		options.CostLimit = &costLimit
	}
	result := compiler.CompileCELExpression(input.Expression, options)
	if result.Error != nil {
		fmt.Fprintf(out, "- ERR %q\n", "compile: "+result.Error.Detail)
		return
	}
	d := input.Device
	matches, details, err := result.DeviceMatches(context.Background(), dracel.Device{
		Driver: d.Driver, AllowMultipleAllocations: d.AllowMultipleAllocations,
		Attributes: d.Attributes, Capacity: d.Capacity,
	})
	cost := "-"
	if details != nil && details.ActualCost() != nil {
		cost = fmt.Sprint(*details.ActualCost())
	}
	if err != nil {
		fmt.Fprintf(out, "%s ERR %q\n", cost, err.Error())
	} else {
		fmt.Fprintf(out, "%s %v\n", cost, matches)
	}
}
