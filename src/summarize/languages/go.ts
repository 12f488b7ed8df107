import { namedChildrenOf, setOf, type LanguageSpec, type SyntaxNode } from './types.js';

function typeSpecOf(node: SyntaxNode): SyntaxNode | undefined {
  return namedChildrenOf(node).find((c) => c.type === 'type_spec' || c.type === 'type_alias');
}

export const goLanguage: LanguageSpec = {
  id: 'go',
  fileType: 'Go',
  grammar: 'go',
  extensions: ['.go'],
  definitions: {
    function_declaration: 'function',
    method_declaration: 'method',
    type_declaration: 'type',
    const_declaration: 'constant',
    var_declaration: 'variable',
    method_elem: 'method',
  },
  containers: setOf('type_declaration'),
  wrappers: setOf(),
  comments: setOf('comment'),
  imports: setOf('import_declaration', 'package_clause'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  kindOf(node) {
    if (node.type !== 'type_declaration') return undefined;
    const type = typeSpecOf(node)?.childForFieldName('type')?.type;
    return type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
  },
  bodyOf(node) {
    if (node.type === 'type_declaration') {
      const type = typeSpecOf(node)?.childForFieldName('type');
      if (type?.type === 'struct_type') return namedChildrenOf(type).find((c) => c.type === 'field_declaration_list') ?? null;
      return type?.type === 'interface_type' ? type : null;
    }
    return node.childForFieldName('body');
  },
  nameOf(node) {
    if (node.type === 'type_declaration') return typeSpecOf(node)?.childForFieldName('name')?.text;
    if (node.type === 'const_declaration' || node.type === 'var_declaration') {
      return namedChildrenOf(node)[0]?.childForFieldName('name')?.text;
    }
    return node.childForFieldName('name')?.text;
  },
  isExported(_node, name) {
    return /^[A-Z]/.test(name);
  },
};
