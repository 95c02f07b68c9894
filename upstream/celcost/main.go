// Command celcost prints the worst-case cost estimate (MaxCost) the API server computes for
// DRA device selectors: CompileCELExpression of k8s.io/dynamic-resource-allocation/cel with
// the NewExpressions environment and DRAConsumableCapacity on, as validateCELExpression
// (k8s.io/kubernetes pkg/apis/resource/validation) calls it. It reads one JSON string per
// line on stdin and writes one line per expression: the MaxCost, or "ERR" and the
// compilation error. With -list-type-attributes, DRAListTypeAttributes is on too.
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

	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

func main() {
	listType := flag.Bool("list-type-attributes", false, "enable DRAListTypeAttributes")
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
