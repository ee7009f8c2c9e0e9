/**
 * An op's handler checks and calls the core; the store and the pty host are the core's
 * (docs/design.md, "Where an op lives"). This finds a handler's file reaching them, however it
 * spells it: `core.store`, `core["store"]`, `const { store } = core`, `const { store: s } = core`,
 * `const c = core; c.store`, `handler({ store }) {…}`, `Core["store"]`.
 */
import ts from "typescript";
import { where } from "./sources.js";

/** The parts of Core a handler may not touch. */
const THE_CORES = new Set(["store", "terminals"]);

/**
 * Where the file reaches past the core, each as `file:line: how`. What holds the core: a
 * handler's first parameter (`handler(core, …)`, whatever its name), a parameter or variable
 * typed `Core`, and any variable given one of those.
 */
export function reachesPastCore(ast: ts.SourceFile): string[] {
  const cores = new Set<string>();
  // What is taken apart from the core: `const { store } = core`, `handler({ store })`.
  const patterns = new Set<ts.ObjectBindingPattern>();
  const hold = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) cores.add(name.text);
    else if (ts.isObjectBindingPattern(name)) patterns.add(name);
  };
  // Who holds the core: found first, then aliases until no new one comes.
  const visitHolders = (node: ts.Node): void => {
    if (isHandler(node)) {
      const first = (node as ts.FunctionLikeDeclaration).parameters[0];
      if (first) hold(first.name);
    }
    if ((ts.isParameter(node) || ts.isVariableDeclaration(node)) && node.type && namesCore(node.type))
      hold(node.name);
    ts.forEachChild(node, visitHolders);
  };
  visitHolders(ast);
  for (let size = -1; size !== cores.size; ) {
    size = cores.size;
    const visitAliases = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && node.initializer && holdsCore(node.initializer, cores)) {
        hold(node.name);
        // `const { ...rest } = core`: rest holds the store too.
        if (ts.isObjectBindingPattern(node.name))
          for (const e of node.name.elements) if (e.dotDotDotToken) hold(e.name);
      }
      ts.forEachChild(node, visitAliases);
    };
    visitAliases(ast);
  }
  const found: string[] = [];
  const say = (node: ts.Node, how: string) => found.push(`${where(node)}: ${how}`);
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      THE_CORES.has(node.name.text) &&
      holdsCore(node.expression, cores)
    )
      say(node, node.getText());
    else if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      THE_CORES.has(node.argumentExpression.text) &&
      holdsCore(node.expression, cores)
    )
      say(node, node.getText());
    else if (
      ts.isIndexedAccessTypeNode(node) &&
      namesCore(node.objectType) &&
      ts.isLiteralTypeNode(node.indexType) &&
      ts.isStringLiteral(node.indexType.literal) &&
      THE_CORES.has(node.indexType.literal.text)
    )
      say(node, node.getText());
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      // `({ store } = core)`
      if (ts.isObjectLiteralExpression(node.left) && holdsCore(node.right, cores))
        for (const p of node.left.properties)
          if (p.name && THE_CORES.has(p.name.getText())) say(p, `{ ${p.getText()} } = core`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ast);
  for (const pattern of patterns)
    for (const e of pattern.elements) {
      const key = (e.propertyName ?? e.name).getText();
      if (THE_CORES.has(key)) say(e, `{ ${e.getText()} } = core`);
    }
  return found.sort((a, b) => lineOf(a) - lineOf(b));
}

const lineOf = (found: string) => Number(found.split(":")[1]);

/** `handler(core, …) {…}` or `handler: (core, …) => …`, a property of an op's definition. */
function isHandler(node: ts.Node): boolean {
  if (ts.isMethodDeclaration(node)) return node.name.getText() === "handler";
  return (
    (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
    ts.isPropertyAssignment(node.parent) &&
    node.parent.name.getText() === "handler"
  );
}

/** Whether a type mentions `Core` (`Core`, `Pick<Core, …>`, `Readonly<Core>`). */
function namesCore(type: ts.TypeNode): boolean {
  if (ts.isTypeReferenceNode(type) && type.typeName.getText() === "Core") return true;
  return ts.forEachChild(type, (child) => (ts.isTypeNode(child) && namesCore(child)) || undefined) ?? false;
}

/** Whether an expression is one that holds the core (`core`, `(core)`, `core!`, `core as Core`). */
function holdsCore(expr: ts.Expression, cores: Set<string>): boolean {
  while (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr) || ts.isAsExpression(expr))
    expr = expr.expression;
  return ts.isIdentifier(expr) && cores.has(expr.text);
}
