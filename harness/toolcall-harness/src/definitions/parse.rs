//! A definition's document structure (`specs/definitions.md` §2, §4, §7): the title, the
//! description, the level-2 sections of its kind, `## Metadata` and `## Workflow`, assembled
//! with the schemas of `schema` into a [`Contract`].

use super::contract::{Contract, InputSchema, Kind, SkillParts, Workflow};
use super::error::{DefinitionError, Located, Problem};
use super::outline::{Block, outline};
use super::schema::{list_items, parameters, result_schema};
use super::values::{KeyTable, key_items, lookup, same_key, unknown_key};

/// The contract defined by `source`, a definition of `kind`. `file` names the file in errors.
pub fn parse_definition(file: &str, kind: Kind, source: &str) -> Result<Contract, DefinitionError> {
    let text = super::text::lf_line_ends(super::text::strip_bom(source));
    parse(kind, &text).map_err(|located| located.in_file(file))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SectionName {
    Metadata,
    Parameters,
    Returns,
    Workflow,
    InputSchema,
    OutputSchema,
}

impl SectionName {
    fn title(self) -> &'static str {
        match self {
            SectionName::Metadata => "Metadata",
            SectionName::Parameters => "Parameters",
            SectionName::Returns => "Returns",
            SectionName::Workflow => "Workflow",
            SectionName::InputSchema => "Input Schema",
            SectionName::OutputSchema => "Output Schema",
        }
    }
}

/// The known sections of a kind, in the order they are checked, and whether each is required
/// (D2.3, D2.4).
fn known_sections(kind: Kind) -> &'static [(SectionName, bool)] {
    match kind {
        Kind::Tool => &[
            (SectionName::Metadata, true),
            (SectionName::Parameters, true),
            (SectionName::Returns, false),
        ],
        Kind::Skill => &[
            (SectionName::Metadata, true),
            (SectionName::Workflow, true),
            (SectionName::InputSchema, true),
            (SectionName::OutputSchema, false),
        ],
    }
}

struct Section<'a> {
    name: SectionName,
    line: usize,
    blocks: &'a [Block],
}

impl Section<'_> {
    fn title(&self) -> &'static str {
        self.name.title()
    }
}

/// Where the contract's parts come from, once the structure is checked.
struct Document<'a> {
    title: String,
    title_line: usize,
    description: String,
    sections: Vec<Section<'a>>,
}

impl Document<'_> {
    fn section(&self, name: SectionName) -> Option<&Section<'_>> {
        self.sections.iter().find(|section| section.name == name)
    }

    fn required(&self, name: SectionName) -> Result<&Section<'_>, Located> {
        self.section(name).ok_or_else(|| {
            Located::document(self.title_line, Problem::MissingSection(name.title()))
        })
    }
}

fn parse(kind: Kind, source: &str) -> Result<Contract, Located> {
    let blocks = outline(source)?;
    let document = structure(kind, &blocks)?;
    let metadata = metadata(document.required(SectionName::Metadata)?, kind)?;
    let (skill, inputs, results) = match kind {
        Kind::Tool => (None, SectionName::Parameters, SectionName::Returns),
        Kind::Skill => {
            let workflow = workflow(document.required(SectionName::Workflow)?)?;
            let skill = SkillParts {
                required_tools: metadata.required_tools,
                required_skills: metadata.required_skills,
                workflow,
            };
            (
                Some(skill),
                SectionName::InputSchema,
                SectionName::OutputSchema,
            )
        }
    };
    let inputs = document.required(inputs)?;
    let input_schema = InputSchema {
        parameters: parameters(inputs.blocks, inputs.title())?,
    };
    let returns = document
        .section(results)
        .map(|section| result_schema(section.blocks, section.title(), section.line))
        .transpose()?;
    Ok(Contract {
        kind,
        name: metadata.name,
        title: document.title,
        description: document.description,
        version: metadata.version,
        category: metadata.category,
        requires_auth: metadata.requires_auth,
        requires_patient_context: metadata.requires_patient_context,
        skill,
        input_schema,
        returns,
    })
}

/// Title (D2.1), description (D2.2) and the known sections (D2.3).
fn structure(kind: Kind, blocks: &[Block]) -> Result<Document<'_>, Located> {
    let from_title = blocks
        .iter()
        .position(|b| matches!(b, Block::Heading { .. }))
        .and_then(|first_heading| blocks.get(first_heading..))
        .unwrap_or_default();
    let (title, title_line, after_title) = match from_title.split_first() {
        Some((
            Block::Heading {
                level: 1,
                text,
                line,
            },
            rest,
        )) if !text.is_empty() => (text.clone(), *line, rest),
        Some((Block::Heading { line, .. }, _)) => {
            return Err(Located::document(*line, Problem::MissingTitle));
        }
        _ => return Err(Located::document(1, Problem::MissingTitle)),
    };
    if let Some(Block::Heading { line, .. }) = after_title
        .iter()
        .find(|b| matches!(b, Block::Heading { level: 1, .. }))
    {
        return Err(Located::document(*line, Problem::DuplicateTitle));
    }
    let is_section = |b: &Block| matches!(b, Block::Heading { level: 2, .. });
    let intro_end = after_title
        .iter()
        .position(is_section)
        .unwrap_or(after_title.len());
    let (intro, body) = after_title.split_at(intro_end);
    let description = intro
        .iter()
        .find_map(|b| match b {
            Block::Paragraph { text, .. } => Some(text.clone()),
            _ => None,
        })
        .ok_or_else(|| Located::document(title_line, Problem::MissingDescription))?;
    let mut sections: Vec<Section<'_>> = Vec::new();
    // `body` starts at a level-2 heading; each chunk is one section, heading first.
    for chunk in body.chunk_by(|_, next| !is_section(next)) {
        let Some((Block::Heading { text, line, .. }, content)) = chunk.split_first() else {
            continue;
        };
        let Some(&(name, _)) = known_sections(kind)
            .iter()
            .find(|(name, _)| same_key(name.title(), text))
        else {
            continue;
        };
        if sections.iter().any(|earlier| earlier.name == name) {
            return Err(Located::document(
                *line,
                Problem::DuplicateSection(name.title()),
            ));
        }
        sections.push(Section {
            name,
            line: *line,
            blocks: content,
        });
    }
    Ok(Document {
        title,
        title_line,
        description,
        sections,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MetadataKey {
    Name,
    Version,
    Category,
    RequiresAuth,
    RequiresPatientContext,
    RequiredTools,
    RequiredSkills,
}

/// Every metadata key; the last two are for skills only (seed 003).
const SKILL_METADATA_KEYS: &KeyTable<MetadataKey> = &[
    ("Name", MetadataKey::Name),
    ("Version", MetadataKey::Version),
    ("Category", MetadataKey::Category),
    ("Requires Auth", MetadataKey::RequiresAuth),
    (
        "Requires Patient Context",
        MetadataKey::RequiresPatientContext,
    ),
    ("Required Tools", MetadataKey::RequiredTools),
    ("Required Skills", MetadataKey::RequiredSkills),
];

const TOOL_METADATA_KEYS: &KeyTable<MetadataKey> = SKILL_METADATA_KEYS
    .split_at(SKILL_METADATA_KEYS.len() - 2)
    .0;

#[derive(Default)]
struct Metadata {
    name: String,
    version: Option<String>,
    category: Option<String>,
    requires_auth: bool,
    requires_patient_context: bool,
    required_tools: Vec<String>,
    required_skills: Vec<String>,
}

/// `## Metadata` (`specs/definitions.md` §4): unknown keys are refused, flags default to
/// false, `Name` is required.
fn metadata(section: &Section<'_>, kind: Kind) -> Result<Metadata, Located> {
    let table = match kind {
        Kind::Tool => TOOL_METADATA_KEYS,
        Kind::Skill => SKILL_METADATA_KEYS,
    };
    let mut metadata = Metadata::default();
    let mut name = None;
    for key in key_items(list_items(section.blocks), section.title())? {
        match lookup(table, key.key) {
            Some(MetadataKey::Name) => name = Some(key.name()?),
            Some(MetadataKey::Version) => metadata.version = Some(key.scalar()?.to_owned()),
            Some(MetadataKey::Category) => metadata.category = Some(key.scalar()?.to_owned()),
            Some(MetadataKey::RequiresAuth) => metadata.requires_auth = key.boolean()?,
            Some(MetadataKey::RequiresPatientContext) => {
                metadata.requires_patient_context = key.boolean()?;
            }
            Some(MetadataKey::RequiredTools) => metadata.required_tools = key.names()?,
            Some(MetadataKey::RequiredSkills) => metadata.required_skills = key.names()?,
            None => return Err(key.fail(unknown_key(table, key.key))),
        }
    }
    metadata.name = name
        .ok_or_else(|| Located::new(section.line, section.title(), Problem::MissingKey("Name")))?;
    Ok(metadata)
}

/// `## Workflow` (`specs/definitions.md` §7): list items are steps, paragraphs the
/// description.
fn workflow(section: &Section<'_>) -> Result<Workflow, Located> {
    let steps: Vec<String> = list_items(section.blocks)
        .map(|item| item.full_text())
        .filter(|step| !step.is_empty())
        .collect();
    if steps.is_empty() {
        return Err(Located::new(
            section.line,
            section.title(),
            Problem::NoWorkflowSteps,
        ));
    }
    let description = section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    Ok(Workflow { description, steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOOL: &str =
        "# Ping\n\nPings.\n\n## Metadata\n\n- **Name**: ping\n\n## Parameters\n\nNone.\n";

    fn problem(kind: Kind, source: &str) -> Located {
        parse(kind, source).unwrap_err()
    }

    #[test]
    fn a_minimal_tool() {
        let contract = parse(Kind::Tool, TOOL).unwrap();
        assert_eq!(
            serde_json::to_value(&contract).unwrap(),
            json!({"kind": "tool", "name": "ping", "title": "Ping", "description": "Pings.",
                   "requiresAuth": false, "requiresPatientContext": false,
                   "inputSchema": {"type": "object", "properties": {}, "required": []}})
        );
    }

    #[test]
    fn structure_errors() {
        assert_eq!(
            problem(Kind::Tool, "Text only.\n"),
            Located::document(1, Problem::MissingTitle)
        );
        assert_eq!(
            problem(Kind::Tool, "Intro.\n\n## Metadata\n"),
            Located::document(3, Problem::MissingTitle)
        );
        assert_eq!(
            problem(Kind::Tool, &format!("{TOOL}\n# Again\n")),
            Located::document(13, Problem::DuplicateTitle)
        );
        assert_eq!(
            problem(Kind::Tool, "# T\n\n## Metadata\n"),
            Located::document(1, Problem::MissingDescription)
        );
        assert_eq!(
            problem(Kind::Tool, &format!("{TOOL}\n## metadata\n")),
            Located::document(13, Problem::DuplicateSection("Metadata"))
        );
        assert_eq!(
            problem(Kind::Skill, TOOL),
            Located::document(1, Problem::MissingSection("Workflow"))
        );
    }

    #[test]
    fn unknown_sections_are_documentation() {
        let source = TOOL.replace("## Parameters", "## Notes\n\n- anything\n\n## Parameters");
        assert!(parse(Kind::Tool, &source).is_ok());
    }

    #[test]
    fn metadata_errors() {
        let error = problem(
            Kind::Tool,
            &TOOL.replace("ping\n", "ping\n- **Required Tools**: a\n"),
        );
        assert_eq!((error.line, error.section.as_str()), (8, "Metadata"));
        assert!(matches!(error.problem, Problem::UnknownKey { .. }));
        assert_eq!(
            problem(Kind::Tool, &TOOL.replace("**Name**", "**Version**")),
            Located::new(5, "Metadata", Problem::MissingKey("Name"))
        );
    }

    /// Errors are data: damaged inputs (every prefix, every line removed, of every corpus
    /// input) give a contract or an error, never a panic.
    #[test]
    fn never_panics_on_damaged_input() {
        let corpus =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/definitions");
        for entry in std::fs::read_dir(corpus).unwrap() {
            let path = entry.unwrap().path();
            if Kind::from_file_name(&path.to_string_lossy()).is_none() {
                continue;
            }
            let source = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            let lines: Vec<&str> = source.split_inclusive('\n').collect();
            let prefixes = source
                .char_indices()
                .map(|(end, _)| source[..end].to_owned());
            let without_a_line = (0..lines.len()).map(|skipped| {
                let mut kept = lines.clone();
                kept.remove(skipped);
                kept.concat()
            });
            for damaged in prefixes.chain(without_a_line) {
                for kind in [Kind::Tool, Kind::Skill] {
                    let _ = parse(kind, &damaged);
                }
            }
        }
    }
}
