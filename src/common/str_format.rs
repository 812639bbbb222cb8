//! `str.format(*args, **kwargs)`: replacement fields `{name.attr[key]!r:spec}`.
//!
//! In: the format string, positional arguments and a keyword lookup, reached through the
//! [`FormatValue`] trait. Out: the text, or the error CPython raises at the same point.
//! Mirrors `Objects/stringlib/unicode_format.h` (`MarkupIterator_next`, `parse_field`,
//! `field_name_split`, auto-numbering state, nested specs two levels deep). Must not depend
//! on the VM's value model.

use super::op_error::{ErrorKind, Failure, OpError};

/// What `str.format` needs from a value. `Context` is what the operations need (the VM);
/// errors from user code pass through as `Self::Error`, and this module's own errors become
/// one through [`FormatValue::error`] (a `KeyError`'s message is the missing key itself).
pub trait FormatValue: Sized + Clone {
    type Context;
    type Error;
    /// Raise one of this module's errors.
    fn error(cx: &mut Self::Context, error: OpError) -> Self::Error;
    /// `value.name` for `{0.name}`.
    fn attribute(&self, cx: &mut Self::Context, name: &str) -> Result<Self, Self::Error>;
    /// `value[index]` for `{0[1]}`.
    fn item_index(&self, cx: &mut Self::Context, index: usize) -> Result<Self, Self::Error>;
    /// `value[key]` for `{0[key]}`.
    fn item_key(&self, cx: &mut Self::Context, key: &str) -> Result<Self, Self::Error>;
    /// `str(value)` for `!s`.
    fn to_str(&self, cx: &mut Self::Context) -> Result<String, Self::Error>;
    /// `repr(value)` for `!r` (and `!a`, escaped here).
    fn to_repr(&self, cx: &mut Self::Context) -> Result<String, Self::Error>;
    /// Wrap converted text back into a value (`!r` then a spec formats the repr str).
    fn from_text(cx: &mut Self::Context, text: String) -> Self;
    /// `format(value, spec)`.
    fn format(&self, cx: &mut Self::Context, spec: &str) -> Result<String, Self::Error>;
    /// `kwargs[name]` (or `mapping[name]` for `format_map`), `None` when absent.
    fn keyword(
        cx: &mut Self::Context,
        keywords: &Self,
        name: &str,
    ) -> Result<Option<Self>, Self::Error>;
}

/// The arguments of one `str.format` call: positional values (`None` for `format_map`,
/// which has none) and the keyword mapping (handed back to [`FormatValue::keyword`];
/// `None` when there are no keywords).
pub struct FormatArgs<'a, V> {
    pub positional: Option<&'a [V]>,
    pub keywords: Option<&'a V>,
}

type Outcome<T, V> = Result<T, Failure<<V as FormatValue>::Error>>;

/// CPython's auto-numbering state: `{}` and `{0}` may not be mixed.
#[derive(Default)]
struct AutoNumber {
    automatic: Option<bool>,
    next: usize,
}

/// `format_string.format(...)`.
pub fn format_str_method<V: FormatValue>(
    cx: &mut V::Context,
    format_string: &str,
    args: &FormatArgs<'_, V>,
) -> Result<String, V::Error> {
    let chars: Vec<char> = format_string.chars().collect();
    match build_string(cx, &chars, args, 2, &mut AutoNumber::default()) {
        Ok(text) => Ok(text),
        Err(Failure::Op(error)) => Err(V::error(cx, error)),
        Err(Failure::Raised(error)) => Err(error),
    }
}

fn value_error<E>(message: &str) -> Failure<E> {
    Failure::Op(OpError::value(message))
}

/// `build_string`: literal text and fields, with `depth` levels of nesting left.
fn build_string<V: FormatValue>(
    cx: &mut V::Context,
    chars: &[char],
    args: &FormatArgs<'_, V>,
    depth: u32,
    auto: &mut AutoNumber,
) -> Outcome<String, V> {
    if depth == 0 {
        return Err(value_error("Max string recursion exceeded"));
    }
    let mut out = String::new();
    let mut pos = 0;
    while pos < chars.len() {
        let c = chars[pos];
        pos += 1;
        if c != '{' && c != '}' {
            out.push(c);
            continue;
        }
        let doubled = chars.get(pos) == Some(&c);
        if c == '}' && !doubled {
            return Err(value_error("Single '}' encountered in format string"));
        }
        if pos == chars.len() {
            return Err(value_error("Single '{' encountered in format string"));
        }
        if doubled {
            out.push(c);
            pos += 1;
            continue;
        }
        let field = parse_field(chars, &mut pos).map_err(Failure::Op)?;
        out.push_str(&render_field(cx, &field, args, depth, auto)?);
    }
    Ok(out)
}

/// One `{...}` as `parse_field` splits it.
struct Field {
    name: Vec<char>,
    conversion: Option<char>,
    spec: Vec<char>,
    spec_needs_expanding: bool,
}

/// Parse the field starting after its `{`, leaving `pos` after its `}`.
fn parse_field(chars: &[char], pos: &mut usize) -> Result<Field, OpError> {
    let name_start = *pos;
    let mut terminator = None;
    while *pos < chars.len() {
        let c = chars[*pos];
        *pos += 1;
        match c {
            '{' => return Err(OpError::value("unexpected '{' in field name")),
            '[' => {
                while *pos < chars.len() && chars[*pos] != ']' {
                    *pos += 1;
                }
            }
            '}' | ':' | '!' => {
                terminator = Some(c);
                break;
            }
            _ => {}
        }
    }
    let name_end = if terminator.is_some() { *pos - 1 } else { *pos };
    let mut field = Field {
        name: chars[name_start..name_end].to_vec(),
        conversion: None,
        spec: Vec::new(),
        spec_needs_expanding: false,
    };
    match terminator {
        Some('}') => return Ok(field),
        None => return Err(OpError::value("expected '}' before end of string")),
        _ => {}
    }
    if terminator == Some('!') {
        let Some(&conversion) = chars.get(*pos) else {
            return Err(OpError::value(
                "end of string while looking for conversion specifier",
            ));
        };
        field.conversion = Some(conversion);
        *pos += 1;
        if let Some(&next) = chars.get(*pos) {
            *pos += 1;
            if next == '}' {
                return Ok(field);
            }
            if next != ':' {
                return Err(OpError::value("expected ':' after conversion specifier"));
            }
        }
    }
    let spec_start = *pos;
    let mut open = 1;
    while *pos < chars.len() {
        let c = chars[*pos];
        *pos += 1;
        match c {
            '{' => {
                field.spec_needs_expanding = true;
                open += 1;
            }
            '}' => {
                open -= 1;
                if open == 0 {
                    field.spec = chars[spec_start..*pos - 1].to_vec();
                    return Ok(field);
                }
            }
            _ => {}
        }
    }
    Err(OpError::value("unmatched '{' in format spec"))
}

/// Look the field's object up, convert it, expand and apply its spec.
fn render_field<V: FormatValue>(
    cx: &mut V::Context,
    field: &Field,
    args: &FormatArgs<'_, V>,
    depth: u32,
    auto: &mut AutoNumber,
) -> Outcome<String, V> {
    let mut value = field_object(cx, &field.name, args, auto)?;
    let converted = match field.conversion {
        None => None,
        Some('s') => Some(value.to_str(cx).map_err(Failure::Raised)?),
        Some('r') => Some(value.to_repr(cx).map_err(Failure::Raised)?),
        Some('a') => {
            let repr = value.to_repr(cx).map_err(Failure::Raised)?;
            Some(super::chars::escape_non_ascii(&repr))
        }
        Some(other) => {
            let shown = if other.is_ascii_graphic() {
                other.to_string()
            } else {
                format!("\\x{:x}", other as u32)
            };
            return Err(value_error(&format!(
                "Unknown conversion specifier {shown}"
            )));
        }
    };
    if let Some(text) = converted {
        value = V::from_text(cx, text);
    }
    let spec = if field.spec_needs_expanding {
        build_string(cx, &field.spec, args, depth - 1, auto)?
    } else {
        field.spec.iter().collect()
    };
    value.format(cx, &spec).map_err(Failure::Raised)
}

/// `get_field_object`: the argument named by the field's first part, then each `.attr`
/// and `[key]`.
fn field_object<V: FormatValue>(
    cx: &mut V::Context,
    name: &[char],
    args: &FormatArgs<'_, V>,
    auto: &mut AutoNumber,
) -> Outcome<V, V> {
    let first_end = name
        .iter()
        .position(|c| *c == '.' || *c == '[')
        .unwrap_or(name.len());
    let first: String = name[..first_end].iter().collect();
    let index = parse_index(&first)?;
    let mut value = if first.is_empty() || index.is_some() {
        let automatic = first.is_empty();
        match auto.automatic {
            None => auto.automatic = Some(automatic),
            Some(true) if !automatic => {
                return Err(value_error(
                    "cannot switch from automatic field numbering to manual field specification",
                ));
            }
            Some(false) if automatic => {
                return Err(value_error(
                    "cannot switch from manual field specification to automatic field numbering",
                ));
            }
            _ => {}
        }
        let index = index.unwrap_or_else(|| {
            auto.next += 1;
            auto.next - 1
        });
        let Some(positional) = args.positional else {
            return Err(value_error("Format string contains positional fields"));
        };
        positional.get(index).cloned().ok_or_else(|| {
            Failure::Op(OpError::new(
                ErrorKind::IndexError,
                format!("Replacement index {index} out of range for positional args tuple"),
            ))
        })?
    } else {
        let found = match args.keywords {
            Some(keywords) => V::keyword(cx, keywords, &first).map_err(Failure::Raised)?,
            None => None,
        };
        found.ok_or_else(|| Failure::Op(OpError::new(ErrorKind::KeyError, first.clone())))?
    };
    let mut pos = first_end;
    while pos < name.len() {
        let accessor = name[pos];
        pos += 1;
        let part_start = pos;
        let part: String = match accessor {
            '.' => {
                while pos < name.len() && name[pos] != '.' && name[pos] != '[' {
                    pos += 1;
                }
                name[part_start..pos].iter().collect()
            }
            '[' => {
                while pos < name.len() && name[pos] != ']' {
                    pos += 1;
                }
                if pos == name.len() {
                    return Err(value_error("Missing ']' in format string"));
                }
                pos += 1;
                name[part_start..pos - 1].iter().collect()
            }
            _ => {
                return Err(value_error(
                    "Only '.' or '[' may follow ']' in format field specifier",
                ));
            }
        };
        if part.is_empty() {
            return Err(value_error("Empty attribute in format string"));
        }
        let next = match (accessor, parse_index(&part)?) {
            ('.', _) => value.attribute(cx, &part),
            (_, Some(index)) => value.item_index(cx, index),
            (_, None) => value.item_key(cx, &part),
        };
        value = next.map_err(Failure::Raised)?;
    }
    Ok(value)
}

/// `get_integer`: all ASCII digits → the number; anything else → `None`.
fn parse_index<E>(text: &str) -> Result<Option<usize>, Failure<E>> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| value_error("Too many decimal digits in format string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for VM values: ints, strs, a list of ints with attribute `x`, and the
    /// keyword arguments `w=8, x=[9]`.
    #[derive(Clone, Debug)]
    enum Value {
        Int(i64),
        Str(String),
        List(Vec<i64>),
        Keywords,
    }

    impl FormatValue for Value {
        type Context = ();
        type Error = OpError;
        fn error(_: &mut (), error: OpError) -> OpError {
            error
        }
        fn attribute(&self, _: &mut (), name: &str) -> Result<Value, OpError> {
            match (self, name) {
                (Value::List(items), "x") => Ok(Value::Int(items.len() as i64)),
                _ => Err(OpError::value(format!("no attribute {name}"))),
            }
        }
        fn item_index(&self, _: &mut (), index: usize) -> Result<Value, OpError> {
            match self {
                Value::List(items) => items
                    .get(index)
                    .map(|v| Value::Int(*v))
                    .ok_or_else(|| OpError::new(ErrorKind::IndexError, "list index out of range")),
                _ => Err(OpError::type_error("not subscriptable")),
            }
        }
        fn item_key(&self, _: &mut (), _key: &str) -> Result<Value, OpError> {
            Err(OpError::type_error(
                "list indices must be integers or slices, not str",
            ))
        }
        fn to_str(&self, _: &mut ()) -> Result<String, OpError> {
            Ok(match self {
                Value::Int(v) => v.to_string(),
                Value::Str(s) => s.clone(),
                Value::List(items) => format!("{items:?}"),
                Value::Keywords => "{...}".to_string(),
            })
        }
        fn to_repr(&self, cx: &mut ()) -> Result<String, OpError> {
            Ok(match self {
                Value::Str(s) => super::super::chars::str_repr(s),
                other => other.to_str(cx)?,
            })
        }
        fn from_text(_: &mut (), text: String) -> Value {
            Value::Str(text)
        }
        fn format(&self, cx: &mut (), spec: &str) -> Result<String, OpError> {
            match self {
                Value::Int(v) => super::super::format_spec::format_int(&(*v).into(), spec),
                Value::Str(s) => super::super::format_spec::format_str(s, spec),
                _ => self.to_str(cx),
            }
        }
        fn keyword(_: &mut (), _: &Value, name: &str) -> Result<Option<Value>, OpError> {
            Ok(match name {
                "w" => Some(Value::Int(8)),
                "x" => Some(Value::List(vec![9])),
                _ => None,
            })
        }
    }

    fn run(format: &str, positional: &[Value]) -> String {
        let args = FormatArgs {
            positional: Some(positional),
            keywords: Some(&Value::Keywords),
        };
        format_str_method(&mut (), format, &args).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn fields_match_cpython() {
        // Expected values printed by python3.13 for the same calls.
        use Value::*;
        let one = [Int(1)];
        assert_eq!(run("{}", &one), "1");
        assert_eq!(run("{{}} {}", &one), "{} 1");
        assert_eq!(
            run("}", &[]),
            "ValueError: Single '}' encountered in format string"
        );
        assert_eq!(
            run("{", &[]),
            "ValueError: Single '{' encountered in format string"
        );
        assert_eq!(
            run("{0", &one),
            "ValueError: expected '}' before end of string"
        );
        assert_eq!(
            run("a}b", &[]),
            "ValueError: Single '}' encountered in format string"
        );
        assert_eq!(run("{!}", &one), "ValueError: unmatched '{' in format spec");
        assert_eq!(run("{!r", &one), "ValueError: unmatched '{' in format spec");
        assert_eq!(
            run("{!rr}", &one),
            "ValueError: expected ':' after conversion specifier"
        );
        assert_eq!(
            run("{!x}", &one),
            "ValueError: Unknown conversion specifier x"
        );
        assert_eq!(run("{0!r:>5}", &[Str("a".into())]), "  'a'");
        assert_eq!(run("{:{}}", &[Int(5), Int(4)]), "   5");
        assert_eq!(run("{:{w}}|", &[Int(5)]), "       5|");
        assert_eq!(
            run("{0}{}", &one),
            "ValueError: cannot switch from manual field specification to automatic field numbering"
        );
        assert_eq!(
            run("{}{0}", &one),
            "ValueError: cannot switch from automatic field numbering to manual field specification"
        );
        assert_eq!(
            run("{1}", &one),
            "IndexError: Replacement index 1 out of range for positional args tuple"
        );
        // The VM raises KeyError('a'), which prints as `KeyError: 'a'`.
        assert_eq!(run("{a}", &[]), "KeyError: a");
        assert_eq!(run("{0[1]}", &[List(vec![5, 6])]), "6");
        assert_eq!(run("{0.x}", &[List(vec![5, 6])]), "2");
        assert_eq!(run("{x[0]}", &[]), "9");
        assert_eq!(
            run("{0[}", &[List(vec![1])]),
            "ValueError: expected '}' before end of string"
        );
        assert_eq!(
            run("{0.}", &one),
            "ValueError: Empty attribute in format string"
        );
        assert_eq!(
            run("{0[0]x}", &[List(vec![1])]),
            "ValueError: Only '.' or '[' may follow ']' in format field specifier"
        );
        assert_eq!(
            run("{0..x}", &one),
            "ValueError: Empty attribute in format string"
        );
        assert_eq!(
            run("{:{:{}}}", &[Int(1), Int(2), Int(3)]),
            "ValueError: Max string recursion exceeded"
        );
        assert_eq!(run("{0:}", &[Int(3)]), "3");
        assert_eq!(
            run("{0:{1}}", &[Int(3)]),
            "IndexError: Replacement index 1 out of range for positional args tuple"
        );
        assert_eq!(
            run("{}", &[]),
            "IndexError: Replacement index 0 out of range for positional args tuple"
        );
        assert_eq!(
            run("{:}}", &one),
            "ValueError: Single '}' encountered in format string"
        );
        assert_eq!(
            run("{:{}", &[Int(1), Int(2)]),
            "ValueError: unmatched '{' in format spec"
        );
        assert_eq!(run("{!s:5}|", &[Str("None".into())]), "None |");
        assert_eq!(run("{[0]}", &[List(vec![4])]), "4");
        assert_eq!(run("{00}", &one), "1");
        assert_eq!(run("{0x}", &one), "KeyError: 0x");
        let map_args = FormatArgs {
            positional: None,
            keywords: Some(&Value::Keywords),
        };
        let format_map = format_str_method(&mut (), "{w} {}", &map_args);
        assert_eq!(
            format_map.unwrap_err().to_string(),
            "ValueError: Format string contains positional fields"
        );
    }
}
