// Package apisurface counts a module's public API: the exported
// identifiers a user of its packages can name. Issue 21 holds Duet to 200
// of them (log/slog has 142); the count is printed by
// `go test ./internal/apisurface -run TestCount -v`.
//
// An identifier is an exported package-level const, var, type or func, or
// an exported method of a type, an interface's included (fields are the
// type's, and not counted), in a package a user can import: not internal,
// not a command (package main), not a test, not under examples.
package apisurface

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Package is one package's count.
type Package struct {
	Dir   string   // relative to the module's root
	Names []string // its exported identifiers, Type.Method for methods, sorted
}

// Count reads the packages of the module at root and returns each that
// exports something, by directory.
func Count(root string) ([]Package, error) {
	byDir := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (base == "internal" || base == "testdata" || base == "examples" ||
				strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		byDir[dir] = append(byDir[dir], exported(f)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for dir, names := range byDir {
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		pkgs = append(pkgs, Package{Dir: dir, Names: slices.Compact(names)})
	}
	slices.SortFunc(pkgs, func(a, b Package) int { return strings.Compare(a.Dir, b.Dir) })
	return pkgs, nil
}

// exported lists what f declares that a user can name.
func exported(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				names = append(names, d.Name.Name)
				continue
			}
			if recv := receiver(d.Recv.List[0].Type); ast.IsExported(recv) {
				names = append(names, recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					names = append(names, s.Name.Name)
					if it, ok := s.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							for _, n := range m.Names { // none for an embedded interface
								if n.IsExported() {
									names = append(names, s.Name.Name+"."+n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// receiver is the name of a method's receiver type: T of T, *T, T[P] or *T[P].
func receiver(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
