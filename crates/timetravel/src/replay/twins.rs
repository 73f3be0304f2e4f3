//! Twins: URLs that share a SURT key but are different resources. A SURT sorts the query
//! arguments and folds case, so `?q=alice&lang=en` and `?lang=en&q=alice`, or `/CaseTest` and
//! `/casetest`, are one urlkey; captured in the same second they would share a memento. An
//! exact CDX query lists them together (pywb does), but replay must serve each as itself.

use ldwarc_archive::index::Capture;

/// The path and query of `url` exactly as written (case and argument order kept), which is
/// what tells twins apart; scheme and host are left to the SURT (`http`/`https` and `www.`
/// captures of one URL stay one resource).
fn spelling(url: &str) -> Option<(String, Option<String>)> {
    let parsed = url::Url::parse(url).ok()?;
    Some((parsed.path().to_string(), parsed.query().map(String::from)))
}

/// Of the captures of one exact-URL lookup, those of `url` itself: the captures spelled as
/// `url` is (path and query byte for byte) when there are any, else all of them (a request
/// spelled unlike every capture still finds the resource its SURT names).
pub fn own_captures(url: &str, mut captures: Vec<Capture>) -> Vec<Capture> {
    let Some(wanted) = spelling(url) else {
        return captures;
    };
    let own = |capture: &Capture| spelling(&capture.url).as_ref() == Some(&wanted);
    if captures.iter().any(own) {
        captures.retain(own);
    }
    captures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(url: &str) -> Capture {
        Capture {
            urlkey: "org,example)/".into(),
            timestamp: "20240101000000".into(),
            time_micros: 0,
            url: url.into(),
            mime: None,
            status: Some(200),
            digest: None,
            length: 1,
            offset: 0,
            filename: "f.warc".into(),
            record_type: ldwarc_warc::RecordType::Response,
            redirect: None,
            record_id: None,
            refers_to_url: None,
            refers_to_timestamp: None,
            original: None,
        }
    }

    fn urls(captures: &[Capture]) -> Vec<&str> {
        captures.iter().map(|c| c.url.as_str()).collect()
    }

    #[test]
    fn twins_are_told_apart_by_spelling() {
        let all = vec![
            capture("http://example.org/s?q=alice&lang=en"),
            capture("https://www.example.org/s?lang=en&q=alice"),
            capture("http://example.org/s?lang=en&q=alice"),
        ];
        assert_eq!(
            urls(&own_captures(
                "http://example.org/s?lang=en&q=alice",
                all.clone()
            )),
            vec![
                "https://www.example.org/s?lang=en&q=alice",
                "http://example.org/s?lang=en&q=alice"
            ]
        );
        assert_eq!(
            urls(&own_captures(
                "https://EXAMPLE.org/s?q=alice&lang=en",
                all.clone()
            )),
            vec!["http://example.org/s?q=alice&lang=en"]
        );
        // Spelled like no capture: the SURT's resource, all of it.
        assert_eq!(
            own_captures("http://example.org/s?lang=en&q=alice&x", all.clone()).len(),
            3
        );
        let case = vec![
            capture("http://e.org/CaseTest"),
            capture("http://e.org/casetest"),
        ];
        assert_eq!(
            urls(&own_captures("http://e.org/casetest", case)),
            vec!["http://e.org/casetest"]
        );
    }
}
