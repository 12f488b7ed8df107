import { namedChildrenOf, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/** `const f = () => {}` is a function; other declarations are variables. */
function declaratorOf(node: SyntaxNode): SyntaxNode | undefined {
  return namedChildrenOf(node).find((c) => c.type === 'variable_declarator');
}

/** Names exported CommonJS style: `module.exports = { a, b: c }`, `module.exports = a`, `exports.a = ...`. */
function commonJsExports(root: SyntaxNode): { names: Set<string>; exclusive: boolean } | undefined {
  const names = new Set<string>();
  for (const statement of namedChildrenOf(root)) {
    const assignment = statement.type === 'expression_statement' ? statement.firstNamedChild : null;
    if (assignment?.type !== 'assignment_expression') continue;
    const left = assignment.childForFieldName('left')?.text ?? '';
    const right = assignment.childForFieldName('right');
    if (left === 'module.exports' && right?.type === 'object') {
      for (const property of namedChildrenOf(right)) {
        if (property.type === 'shorthand_property_identifier') names.add(property.text);
        if (property.type === 'pair') {
          const value = property.childForFieldName('value');
          if (value?.type === 'identifier') names.add(value.text);
          const key = property.childForFieldName('key')?.text;
          if (key) names.add(key);
        }
      }
    } else if (left === 'module.exports' && right?.type === 'identifier') names.add(right.text);
    else {
      const named = /^(?:module\.)?exports\.([\w$]+)$/.exec(left)?.[1];
      if (named) names.add(named);
      if (named && right?.type === 'identifier') names.add(right.text);
    }
  }
  return names.size > 0 ? { names, exclusive: false } : undefined;
}

/** `const x = require('y')` and `require('y')` are imports. */
function isRequire(node: SyntaxNode): boolean {
  const call =
    node.type === 'lexical_declaration' || node.type === 'variable_declaration'
      ? declaratorOf(node)?.childForFieldName('value')
      : node.type === 'expression_statement'
        ? node.firstNamedChild
        : undefined;
  return call?.type === 'call_expression' && call.childForFieldName('function')?.text === 'require';
}

/** Test-framework blocks: `describe(...)` groups are outlined, `it(...)`/`test(...)` bodies elided. */
const SUITE_CALLS = /^(describe|context|suite)(\.(only|skip|each\(.*\)|concurrent))*$/s;
const CASE_CALLS = /^(it|test|bench|beforeEach|afterEach|beforeAll|afterAll)(\.(only|skip|todo|each\(.*\)|concurrent))*$/s;

function testCallOf(node: SyntaxNode): { call: SyntaxNode; callee: string; callback: SyntaxNode } | undefined {
  if (node.type !== 'expression_statement') return undefined;
  const call = node.firstNamedChild;
  if (call?.type !== 'call_expression') return undefined;
  const callee = call.childForFieldName('function')?.text ?? '';
  if (!SUITE_CALLS.test(callee) && !CASE_CALLS.test(callee)) return undefined;
  const args = call.childForFieldName('arguments');
  const callback = args ? namedChildrenOf(args).reverse().find((a) => FUNCTION_VALUES.has(a.type)) : undefined;
  return callback ? { call, callee, callback } : undefined;
}

function ecmaKindOf(node: SyntaxNode): string | undefined {
  const testCall = testCallOf(node);
  if (testCall) return SUITE_CALLS.test(testCall.callee) ? 'suite' : 'test';
  if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
    const value = declaratorOf(node)?.childForFieldName('value');
    if (isRequire(node)) return undefined;
    return value && FUNCTION_VALUES.has(value.type) ? 'function' : 'variable';
  }
  if (node.type === 'public_field_definition' || node.type === 'field_definition') {
    const value = node.childForFieldName('value');
    return value && FUNCTION_VALUES.has(value.type) ? 'method' : 'field';
  }
  return undefined;
}

function ecmaBodyOf(node: SyntaxNode): SyntaxNode | null {
  const testCall = testCallOf(node);
  if (testCall) return testCall.callback.childForFieldName('body');
  const value =
    node.type === 'lexical_declaration' || node.type === 'variable_declaration'
      ? declaratorOf(node)?.childForFieldName('value')
      : node.type === 'public_field_definition' || node.type === 'field_definition'
        ? node.childForFieldName('value')
        : undefined;
  if (value) return FUNCTION_VALUES.has(value.type) ? value.childForFieldName('body') : value;
  return node.childForFieldName('body');
}

function ecmaNameOf(node: SyntaxNode): string | undefined {
  const testCall = testCallOf(node);
  if (testCall) {
    const first = testCall.call.childForFieldName('arguments')?.firstNamedChild;
    const title = first && /string|template_string/.test(first.type) ? first.text.slice(1, -1) : (first?.text ?? '');
    return `${testCall.callee.replace(/\..*$/s, '')} ${title}`.trim();
  }
  if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
    return declaratorOf(node)?.childForFieldName('name')?.text;
  }
  return (node.childForFieldName('name') ?? node.childForFieldName('property'))?.text;
}

function ecmaIsExported(node: SyntaxNode, name: string, context: { wrapped: boolean; container: SyntaxNode | null }): boolean {
  if (context.container === null) return context.wrapped;
  if (name.startsWith('#')) return false;
  const access = namedChildrenOf(node).find((c) => c.type === 'accessibility_modifier')?.text;
  return access !== 'private' && access !== 'protected';
}

/** The ECMAScript family shares node types; TSX and JavaScript reuse this with their grammar. */
export function ecmascriptLanguage(id: string, fileType: string, grammar: string, extensions: string[]): LanguageSpec {
  return {
    id,
    fileType,
    grammar,
    extensions,
    definitions: {
      function_declaration: 'function',
      generator_function_declaration: 'function',
      function_signature: 'function',
      class_declaration: 'class',
      abstract_class_declaration: 'class',
      class: 'class',
      interface_declaration: 'interface',
      type_alias_declaration: 'type',
      enum_declaration: 'enum',
      internal_module: 'namespace',
      module: 'namespace',
      method_definition: 'method',
      method_signature: 'method',
      abstract_method_signature: 'method',
    },
    containers: setOf('class_declaration', 'abstract_class_declaration', 'class', 'interface_declaration', 'enum_declaration', 'internal_module', 'module'),
    containerKinds: setOf('suite'),
    wrappers: setOf('export_statement', 'ambient_declaration'),
    comments: setOf('comment', 'hash_bang_line'),
    imports: setOf('import_statement'),
    bodyStyle: 'brace',
    commentPrefix: '//',
    kindOf: ecmaKindOf,
    bodyOf: ecmaBodyOf,
    nameOf: ecmaNameOf,
    isExported: ecmaIsExported,
    isImport: isRequire,
    moduleExports: commonJsExports,
  };
}

export const typescriptLanguage = ecmascriptLanguage('typescript', 'TypeScript', 'typescript', ['.ts', '.mts', '.cts']);
