// Command celeval records what upstream's CEL does with regular expressions and expressions,
// for the corpora of tests/dra (so the tests need no Go): each stdin line is a JSON object,
// {"regexp": P} (Go's regexp.Compile of P, which cel-go's matches, its regex literal
// validator and apiserver's library/regex.go use) or {"expr": E} (E compiled in the
// NewExpressions environment of k8s.io/dynamic-resource-allocation/cel with
// DRAConsumableCapacity on, as the API server does, then evaluated with a device that has
// only a driver, {"driver": D}, the way to give a pattern that is not a literal). Each
// output line is a JSON object: {"ok": true} or {"error": ...} for a regexp; {"value": V} (V
// as google.protobuf.Value JSON, or a string for other types), {"error": ...} (evaluation) or
// {"compile": ...} (compilation) or {"panic": ...} (cel-go panicked) for an expression.
//
//	cd upstream && go run ./celeval < in.jsonl > out.jsonl
//
// With -unicode-names it prints the Unicode class names Go's regexp/syntax looks up (package
// unicode's Categories, Scripts and CategoryAliases), reference_impl/dra/cel_regex_names.json:
//
//	cd upstream && go run ./celeval -unicode-names > ../reference_impl/dra/cel_regex_names.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"unicode"

	"github.com/google/cel-go/cel"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

type request struct {
	Regexp *string `json:"regexp"`
	Expr   *string `json:"expr"`
	Driver string  `json:"driver"`
}

func main() {
	names := flag.Bool("unicode-names", false, "print the Unicode class names of package unicode")
	flag.Parse()
	if *names {
		printNames()
		return
	}
	compiler := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true})
	envType := environment.NewExpressions
	env := compiler.CompileCELExpression("true", dracel.Options{EnvType: &envType}).Environment
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		result := map[string]any{}
		switch {
		case req.Regexp != nil:
			if _, err := regexp.Compile(*req.Regexp); err != nil {
				result["error"] = err.Error()
			} else {
				result["ok"] = true
			}
		case req.Expr != nil:
			evaluate(env, *req.Expr, req.Driver, result)
		}
		if err := enc.Encode(result); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

func evaluate(env *cel.Env, expression, driver string, result map[string]any) {
	defer func() {
		// cel-go panics on some expressions (a dyn optional list entry, a bytes map key)
		if r := recover(); r != nil {
			result["panic"] = fmt.Sprint(r)
		}
	}()
	ast, iss := env.Compile(expression)
	if iss.Err() != nil {
		result["compile"] = iss.Err().Error()
		return
	}
	prg, err := env.Program(ast)
	if err != nil {
		result["compile"] = err.Error()
		return
	}
	val, _, err := prg.Eval(map[string]any{"device": map[string]any{"driver": driver}})
	if err != nil {
		result["error"] = err.Error()
		return
	}
	native, err := val.ConvertToNative(reflect.TypeOf(&structpb.Value{}))
	if err != nil {
		result["value"] = fmt.Sprint(val.Value())
		return
	}
	raw, _ := protojson.Marshal(native.(*structpb.Value))
	result["value"] = json.RawMessage(raw)
}

func printNames() {
	var categories, scripts []string
	for k := range unicode.Categories {
		categories = append(categories, k)
	}
	for k := range unicode.Scripts {
		scripts = append(scripts, k)
	}
	slices.Sort(categories)
	slices.Sort(scripts)
	out, err := json.MarshalIndent(map[string]any{
		"source":     runtime.Version() + " package unicode " + unicode.Version,
		"categories": categories,
		"scripts":    scripts,
		"aliases":    unicode.CategoryAliases,
	}, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(string(out))
}
