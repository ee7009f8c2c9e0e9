/**
 * State at a module's level: what a module keeps that changes while the daemon runs. In the core
 * and the op table a daemon's state is `Core`'s (a field of one of its parts, or of a `LiveJob`), so
 * two daemons in one process share nothing, and a test's daemon starts from nothing.
 */
import ts from "typescript";
import { where } from "./sources.js";

/** Classes whose instances hold no state worth the name (a pattern, a codec, a locale's rules). */
const VALUE_CLASSES = new Set(["RegExp", "TextEncoder", "TextDecoder", "Intl.Collator", "Intl.Segmenter"]);
/** Methods that change the collection they are called on. */
const MUTATORS = new Set([
  ...["push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"],
  ...["set", "add", "delete", "clear"],
]);

/**
 * What holds state at the top of a file, each as `file:line: name (what it is)`: a `let` or a
 * `var`; a `const` made by `new` (a Map, a Set, an array, any class of ours) unless typed
 * read-only (`ReadonlyMap`, `ReadonlySet`, `readonly T[]`, `Readonly<T>`); a `const` changed in
 * the file (an element pushed, a key set, a field assigned); the result of calling a function
 * written in place (its closure is state); a class's static field that is not `readonly`.
 * `allowed` names the one binding of this file that may (a memo of a pure function).
 */
export function moduleState(ast: ts.SourceFile, allowed?: string): string[] {
  const found: string[] = [];
  const say = (node: ts.Node, name: string, what: string) => {
    if (name !== allowed) found.push(`${where(node)}: ${name} (${what})`);
  };
  const changed = changedNames(ast);
  for (const stmt of ast.statements) {
    if (ts.isVariableStatement(stmt)) {
      const isConst = (stmt.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const decl of stmt.declarationList.declarations) {
        for (const name of boundNames(decl.name)) {
          if (!isConst) say(decl, name, "a top-level let or var");
          else if (changed.has(name)) say(decl, name, "changed after it is made");
          else {
            const what = madeState(decl);
            if (what) say(decl, name, what);
          }
        }
      }
    } else if (ts.isClassDeclaration(stmt)) {
      for (const member of stmt.members) {
        const isStatic = ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static;
        const isReadonly = ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Readonly;
        if (ts.isPropertyDeclaration(member) && isStatic && (!isReadonly || madeState(member)))
          say(member, `${stmt.name?.text}.${member.name.getText()}`, "a static field");
      }
    }
  }
  return found;
}

/** What state a declaration's initial value is, if it is one. */
function madeState(decl: ts.VariableDeclaration | ts.PropertyDeclaration): string | undefined {
  let value = decl.initializer;
  while (value && (ts.isParenthesizedExpression(value) || ts.isSatisfiesExpression(value)))
    value = value.expression;
  if (!value) return undefined;
  if (ts.isNewExpression(value)) {
    const made = value.expression.getText();
    if (VALUE_CLASSES.has(made) || isReadOnlyType(decl.type)) return undefined;
    return `a new ${made}`;
  }
  if (ts.isCallExpression(value)) {
    let callee: ts.Expression = value.expression;
    while (ts.isParenthesizedExpression(callee)) callee = callee.expression;
    if (ts.isFunctionExpression(callee) || ts.isArrowFunction(callee))
      return "what a function run in place returns (its closure)";
  }
  return undefined;
}

const READ_ONLY = /^(Readonly(Map|Set|Array)?<|readonly )/;
const isReadOnlyType = (type: ts.TypeNode | undefined) =>
  type !== undefined && READ_ONLY.test(type.getText());

/** The names a declaration binds (`const { a, b: [c] } = …` binds a and c). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isBindingElement(e) ? boundNames(e.name) : []));
}

/**
 * The names whose value the file changes in place: `x.push(…)`, `x.a.set(…)`, `x[k] = …`,
 * `x.a += …`, `x.n++`, `delete x.a`, `Object.assign(x, …)`. The name is the root of what is
 * changed (`x` in `x.a.b = 1`); a local of the same name counts too, which errs on the side of
 * finding.
 */
function changedNames(ast: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const rootOf = (expr: ts.Expression): string | undefined => {
    let node: ts.Node = expr;
    while (
      ts.isPropertyAccessExpression(node) ||
      ts.isElementAccessExpression(node) ||
      ts.isNonNullExpression(node)
    )
      node = node.expression;
    return ts.isIdentifier(node) ? node.text : undefined;
  };
  const within = (target: ts.Expression) => {
    // Only what is inside a value is changed: `x = 1` is no change of x's value (and x is a let).
    if (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) {
      const root = rootOf(target);
      if (root) names.add(root);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) within(node.left);
    else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && isStep(node.operator))
      within(node.operand);
    else if (ts.isDeleteExpression(node)) within(node.expression);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && MUTATORS.has(callee.name.text)) {
        const root = rootOf(callee.expression);
        if (root) names.add(root);
      }
      if (/^Object\.(assign|defineProperty|defineProperties|setPrototypeOf)$/.test(callee.getText())) {
        const root = node.arguments[0] && rootOf(node.arguments[0]);
        if (root) names.add(root);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  return names;
}

const isAssignment = (kind: ts.SyntaxKind) =>
  kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
const isStep = (op: ts.SyntaxKind) =>
  op === ts.SyntaxKind.PlusPlusToken || op === ts.SyntaxKind.MinusMinusToken;
