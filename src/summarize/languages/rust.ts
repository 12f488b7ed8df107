import { hasChildOfType, setOf, type LanguageSpec } from './types.js';

export const rustLanguage: LanguageSpec = {
  id: 'rust',
  fileType: 'Rust',
  grammar: 'rust',
  extensions: ['.rs'],
  definitions: {
    function_item: 'function',
    function_signature_item: 'function',
    struct_item: 'struct',
    enum_item: 'enum',
    union_item: 'union',
    trait_item: 'trait',
    impl_item: 'impl',
    mod_item: 'module',
    type_item: 'type',
    const_item: 'constant',
    static_item: 'variable',
    macro_definition: 'macro',
  },
  containers: setOf('struct_item', 'enum_item', 'union_item', 'trait_item', 'impl_item', 'mod_item'),
  wrappers: setOf(),
  comments: setOf('line_comment', 'block_comment', 'attribute_item'),
  imports: setOf('use_declaration', 'extern_crate_declaration', 'inner_attribute_item'),
  bodyStyle: 'brace',
  commentPrefix: '//',
  kindOf(node) {
    return node.type === 'function_item' && node.parent?.parent?.type === 'impl_item' ? 'method' : undefined;
  },
  nameOf(node) {
    if (node.type === 'impl_item') {
      const trait = node.childForFieldName('trait')?.text;
      const type = node.childForFieldName('type')?.text ?? '';
      return trait ? `${trait} for ${type}` : type;
    }
    return node.childForFieldName('name')?.text;
  },
  isExported(node, _name, context) {
    if (node.type === 'impl_item') return true;
    // Members of a trait, or of a trait impl, are as public as the trait.
    if (context.container?.type === 'trait_item') return true;
    if (context.container?.type === 'impl_item' && context.container.childForFieldName('trait')) return true;
    return hasChildOfType(node, 'visibility_modifier');
  },
};
