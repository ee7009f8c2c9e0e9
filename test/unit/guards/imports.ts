/**
 * What a file imports, read from its syntax: every module it names (for the layers, where a type
 * counts as any import), and those it loads when it runs (for cycles, where a type does not).
 */
import ts from "typescript";

const specOf = (node: ts.Expression | undefined) =>
  node && ts.isStringLiteralLike(node) ? node.text : undefined;

/** Every module a file names: imports and re-exports (type-only too), `import()`, `import("x").T`. */
export function importsOf(text: string): string[] {
  // The compiler's pre-pass: its scanner alone, no tree.
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/**
 * The modules a file loads before it runs: its static imports and re-exports, but for those of
 * types alone, which the compiler drops (`import type`, `import { type A }`, and a plain import
 * whose names are used only as types). A dynamic `import()` loads later, so it closes no cycle.
 */
export function runtimeImportsOf(ast: ts.SourceFile): string[] {
  const used = valueNames(ast);
  const specs: string[] = [];
  for (const stmt of ast.statements) {
    if (ts.isImportDeclaration(stmt)) {
      const clause = stmt.importClause;
      const names: string[] = [];
      if (clause && !clause.isTypeOnly) {
        if (clause.name) names.push(clause.name.text);
        const bound = clause.namedBindings;
        if (bound && ts.isNamespaceImport(bound)) names.push(bound.name.text);
        if (bound && ts.isNamedImports(bound))
          names.push(...bound.elements.filter((e) => !e.isTypeOnly).map((e) => e.name.text));
      }
      // `import "x"` is loaded for its effects.
      if (!clause || names.some((n) => used.has(n))) specs.push(specOf(stmt.moduleSpecifier)!);
    } else if (ts.isExportDeclaration(stmt) && stmt.moduleSpecifier && !stmt.isTypeOnly) {
      const only = stmt.exportClause;
      const typesAlone = only && ts.isNamedExports(only) && only.elements.every((e) => e.isTypeOnly);
      if (!typesAlone) specs.push(specOf(stmt.moduleSpecifier)!);
    }
  }
  return specs;
}

/** The names a file uses as values: anywhere but in a type, a declaration's name, a property's. */
function valueNames(ast: ts.SourceFile): Set<string> {
  const used = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isExpressionWithTypeArguments(node) &&
      ts.isHeritageClause(node.parent) &&
      ts.isClassLike(node.parent.parent)
    ) {
      // `class A extends B<T>`: B is a value (its T a type); `implements B` names a type alone.
      if (node.parent.token === ts.SyntaxKind.ExtendsKeyword) visit(node.expression);
      return;
    }
    if (
      ts.isImportDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isTypeParameterDeclaration(node) ||
      ts.isTypeNode(node) ||
      (ts.isExportDeclaration(node) && (node.isTypeOnly || node.moduleSpecifier))
    )
      return;
    if (ts.isIdentifier(node) && isReference(node)) used.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return used;
}

/** Whether an identifier refers to a name in scope (not a property, a label, a new declaration). */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isExportSpecifier(p)) return !p.isTypeOnly && (p.propertyName ?? p.name) === id;
  if (ts.isPropertyAccessExpression(p)) return p.name !== id;
  if (ts.isQualifiedName(p)) return p.right !== id;
  if (ts.isBindingElement(p)) return p.initializer === id; // `{ a = X }`: X is; a, and a key, are not
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  const declared =
    ts.isVariableDeclaration(p) ||
    ts.isParameter(p) ||
    ts.isFunctionDeclaration(p) ||
    ts.isFunctionExpression(p) ||
    ts.isClassDeclaration(p) ||
    ts.isClassExpression(p) ||
    ts.isEnumDeclaration(p) ||
    ts.isEnumMember(p) ||
    ts.isModuleDeclaration(p) ||
    ts.isPropertyAssignment(p) ||
    ts.isPropertyDeclaration(p) ||
    ts.isPropertySignature(p) ||
    ts.isMethodDeclaration(p) ||
    ts.isMethodSignature(p) ||
    ts.isGetAccessor(p) ||
    ts.isSetAccessor(p);
  return !(declared && (p as ts.NamedDeclaration).name === id);
}

/** The package an import names (`@scope/pkg/sub` is `@scope/pkg`), or `node:` for a builtin. */
export function packageOf(spec: string): string {
  if (spec.startsWith("node:")) return "node:";
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}
