//! Content negotiation on `Accept`: q-values, the most specific matching range wins for each
//! syntax, ties go to the server's order of preference.

use super::syntax::Syntax;

/// One media range of an `Accept` header.
#[derive(Debug, Clone, PartialEq)]
struct MediaRange {
    kind: String,
    subtype: String,
    quality: f32,
}

impl MediaRange {
    /// How specifically this range names `media_type`: 2 exact, 1 `type/*`, 0 `*/*`; `None`
    /// when it does not match.
    fn specificity(&self, media_type: &str) -> Option<u8> {
        let (kind, subtype) = media_type.split_once('/')?;
        match (self.kind.as_str(), self.subtype.as_str()) {
            ("*", "*") => Some(0),
            (k, "*") if k == kind => Some(1),
            (k, s) if k == kind && s == subtype => Some(2),
            _ => None,
        }
    }
}

fn parse_quality(value: &str) -> f32 {
    value
        .trim()
        .parse::<f32>()
        .ok()
        .filter(|q| q.is_finite())
        .map_or(1.0, |q| q.clamp(0.0, 1.0))
}

fn parse_range(item: &str) -> Option<MediaRange> {
    let mut parts = item.split(';');
    let (kind, subtype) = parts.next()?.trim().split_once('/')?;
    let mut quality = 1.0;
    for parameter in parts {
        if let Some((name, value)) = parameter.split_once('=')
            && name.trim().eq_ignore_ascii_case("q")
        {
            quality = parse_quality(value);
        }
    }
    Some(MediaRange {
        kind: kind.trim().to_ascii_lowercase(),
        subtype: subtype.trim().to_ascii_lowercase(),
        quality,
    })
}

fn parse_accept(accept: &str) -> Vec<MediaRange> {
    accept.split(',').filter_map(parse_range).collect()
}

/// The quality the client gives `syntax`: that of the most specific range matching it (the
/// highest among equally specific ones), 0 when none matches.
fn quality_of(ranges: &[MediaRange], syntax: Syntax) -> f32 {
    let media_type = syntax.media_type();
    ranges
        .iter()
        .filter_map(|r| r.specificity(media_type).map(|s| (s, r.quality)))
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
        .map_or(0.0, |(_, q)| q)
}

/// Picks the representation to serve among `available` (in the server's order of preference)
/// for an `Accept` header; a missing or blank header means `*/*`. `None` means 406.
pub fn negotiate(accept: Option<&str>, available: &[Syntax]) -> Option<Syntax> {
    let accept = accept.filter(|a| !a.trim().is_empty()).unwrap_or("*/*");
    let ranges = parse_accept(accept);
    let mut best: Option<(Syntax, f32)> = None;
    for &syntax in available {
        let quality = quality_of(&ranges, syntax);
        if quality > 0.0 && best.is_none_or(|(_, q)| quality > q) {
            best = Some((syntax, quality));
        }
    }
    best.map(|(syntax, _)| syntax)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(accept: Option<&str>) -> Option<Syntax> {
        negotiate(accept, &Syntax::ALL)
    }

    #[test]
    fn anything_or_nothing_gets_html() {
        assert_eq!(pick(None), Some(Syntax::Html));
        assert_eq!(pick(Some("")), Some(Syntax::Html));
        assert_eq!(pick(Some("*/*")), Some(Syntax::Html));
        assert_eq!(pick(Some("text/*")), Some(Syntax::Html));
    }

    #[test]
    fn exact_types_win() {
        assert_eq!(pick(Some("text/turtle")), Some(Syntax::Turtle));
        assert_eq!(pick(Some("application/n-triples")), Some(Syntax::NTriples));
        assert_eq!(pick(Some("application/n-quads")), Some(Syntax::NQuads));
        assert_eq!(pick(Some("application/ld+json")), Some(Syntax::JsonLd));
        assert_eq!(pick(Some("Application/RDF+XML")), Some(Syntax::RdfXml));
    }

    #[test]
    fn q_values_are_honoured() {
        let accept = "text/turtle;q=0.5, application/rdf+xml;q=0.9, */*;q=0.1";
        assert_eq!(pick(Some(accept)), Some(Syntax::RdfXml));
        let accept = "application/ld+json; q=0.8 , text/html;q=0.2,application/n-triples";
        assert_eq!(pick(Some(accept)), Some(Syntax::NTriples));
    }

    #[test]
    fn the_most_specific_range_decides() {
        // text/html is refused outright although text/* is welcome.
        assert_eq!(pick(Some("text/*, text/html;q=0")), Some(Syntax::Turtle));
        // */* at q=1 does not lift html above the explicit q=0.3 for it.
        assert_eq!(
            pick(Some("*/*, text/html;q=0.3, application/*;q=0.2")),
            Some(Syntax::Turtle)
        );
        assert_eq!(
            pick(Some("application/*;q=0.5, */*;q=0.1")),
            Some(Syntax::NTriples)
        );
    }

    #[test]
    fn nothing_acceptable_is_none() {
        assert_eq!(pick(Some("image/png")), None);
        assert_eq!(pick(Some("text/turtle;q=0")), None);
        assert_eq!(
            negotiate(Some("application/rdf+xml"), &[Syntax::Turtle]),
            None
        );
        assert_eq!(pick(Some("garbage")), None);
    }
}
