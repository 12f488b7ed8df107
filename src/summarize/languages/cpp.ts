import { namedChildrenOf, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

/** The innermost declarator of a function: `ns::name` in `int ns::name(int) const`. */
function declaredName(node: SyntaxNode): string | undefined {
  let declarator = node.childForFieldName('declarator');
  // Pointer and reference declarators hold the function declarator as a plain child.
  while (declarator) {
    const inner: SyntaxNode | null | undefined =
      declarator.childForFieldName('declarator') ?? namedChildrenOf(declarator).find((c) => c.type.endsWith('declarator'));
    if (!inner) break;
    declarator = inner;
  }
  return declarator?.text;
}

/** Members follow the last `public:`/`private:` label; classes start private, structs public. */
function memberAccess(node: SyntaxNode, container: SyntaxNode): string {
  for (let sibling = node.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (sibling.type === 'access_specifier') return sibling.text.replace(/:$/, '').trim();
  }
  return container.type === 'class_specifier' ? 'private' : 'public';
}

export const cppLanguage: LanguageSpec = {
  id: 'cpp',
  fileType: 'C++',
  grammar: 'cpp',
  extensions: ['.cpp', '.cc', '.cxx', '.hpp', '.hh', '.hxx', '.h', '.c', '.ipp'],
  definitions: {
    function_definition: 'function',
    class_specifier: 'class',
    struct_specifier: 'struct',
    union_specifier: 'union',
    enum_specifier: 'enum',
    namespace_definition: 'namespace',
  },
  containers: setOf('class_specifier', 'struct_specifier', 'union_specifier', 'enum_specifier', 'namespace_definition'),
  wrappers: setOf('template_declaration', 'linkage_specification'),
  comments: setOf('comment'),
  imports: setOf('preproc_include', 'using_declaration', 'alias_declaration'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  // definitions sit inside column-0 namespace braces, so most cuts would split one
  blocks: 'whole',
  kindOf(node) {
    return node.type === 'function_definition' && node.parent?.type === 'field_declaration_list' ? 'method' : undefined;
  },
  nameOf(node) {
    if (node.type === 'function_definition') return declaredName(node);
    return node.childForFieldName('name')?.text;
  },
  isExported(node, _name, context) {
    const { container } = context;
    if (container && (container.type === 'class_specifier' || container.type === 'struct_specifier')) {
      return memberAccess(node, container) !== 'private';
    }
    return !namedChildrenOf(node).some((c) => c.type === 'storage_class_specifier' && c.text === 'static');
  },
};
