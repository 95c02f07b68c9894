// Command celdecls prints the functions and overloads of the CEL environment of DRA device
// selectors that the API server compiles new selectors in: the NewExpressions environment of
// k8s.io/dynamic-resource-allocation/cel (compile.go) with DRAConsumableCapacity on, as
// validateCELExpression (k8s.io/kubernetes pkg/apis/resource/validation) gets it. Each
// overload: its ID, whether it is a member function, its type parameters, argument and
// result types, as cel-go's checker reads them (decls.OverloadDecl); a type is
// [kind, name, [parameters]]. The output is reference_impl/dra/cel_decls.json:
//
//	cd upstream && go run ./celdecls > ../reference_impl/dra/cel_decls.json
package main

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/google/cel-go/common/types"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

var kinds = map[types.Kind]string{
	types.AnyKind: "any", types.BoolKind: "bool", types.BytesKind: "bytes",
	types.DoubleKind: "double", types.DurationKind: "duration", types.DynKind: "dyn",
	types.IntKind: "int", types.ListKind: "list", types.MapKind: "map",
	types.NullTypeKind: "null", types.OpaqueKind: "opaque", types.StringKind: "string",
	types.StructKind: "struct", types.TimestampKind: "timestamp", types.TypeKind: "type",
	types.TypeParamKind: "param", types.UintKind: "uint", types.ErrorKind: "error",
}

func conv(t *types.Type) []any {
	params := []any{}
	for _, p := range t.Parameters() {
		params = append(params, conv(p))
	}
	return []any{kinds[t.Kind()], t.TypeName(), params}
}

func main() {
	envType := environment.NewExpressions
	compiler := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true})
	res := compiler.CompileCELExpression("true", dracel.Options{EnvType: &envType})
	if res.Error != nil {
		panic(res.Error)
	}
	functions := res.Environment.Functions()
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([][]any, 0, len(names))
	for _, name := range names {
		overloads := []any{}
		for _, o := range functions[name].OverloadDecls() {
			args := []any{}
			for _, a := range o.ArgTypes() {
				args = append(args, conv(a))
			}
			overloads = append(overloads, []any{o.ID(), o.IsMemberFunction(), o.TypeParams(), args, conv(o.ResultType())})
		}
		out = append(out, []any{name, overloads})
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
