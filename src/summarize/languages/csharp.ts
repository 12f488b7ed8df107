import { modifierWords, setOf, type LanguageSpec } from './types.js';

export const csharpLanguage: LanguageSpec = {
  id: 'csharp',
  fileType: 'C#',
  grammar: 'c-sharp',
  extensions: ['.cs'],
  definitions: {
    namespace_declaration: 'namespace',
    class_declaration: 'class',
    interface_declaration: 'interface',
    struct_declaration: 'struct',
    record_declaration: 'record',
    enum_declaration: 'enum',
    method_declaration: 'method',
    constructor_declaration: 'constructor',
    property_declaration: 'property',
    field_declaration: 'field',
    delegate_declaration: 'type',
  },
  containers: setOf('namespace_declaration', 'class_declaration', 'interface_declaration', 'struct_declaration', 'record_declaration', 'enum_declaration'),
  wrappers: setOf(),
  comments: setOf('comment'),
  imports: setOf('using_directive', 'file_scoped_namespace_declaration'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  blocks: 'preprocessor',
  nameOf(node) {
    if (node.type === 'field_declaration') {
      const declaration = node.namedChildren.find((c) => c?.type === 'variable_declaration');
      return declaration?.namedChildren.find((c) => c?.type === 'variable_declarator')?.namedChildren[0]?.text;
    }
    return node.childForFieldName('name')?.text;
  },
  isExported(node, _name, context) {
    if (node.type === 'namespace_declaration' || context.container?.type === 'interface_declaration') return true;
    const words = modifierWords(node, ['modifier']);
    return words.includes('public') || words.includes('protected') || words.includes('internal');
  },
};
