//! Sizes written the way people write them: `12000`, `12KB`, `64MiB`, `1.5GB`.

/// Parses a size: bytes, optionally with a unit — `B`, `KB`, `MB`, `GB`, `TB` (powers of
/// 1000) or `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024); a bare number is bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size like 12000, 12KB or 64MiB"))?;
    let multiplier: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown size unit '{other}' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ));
        }
    };
    let bytes = value * multiplier;
    // 2^53: every size below is an exact integer in f64, and far beyond any real file.
    if !(bytes.is_finite() && bytes <= 9_007_199_254_740_992.0) {
        return Err(format!("'{text}' is too large"));
    }
    Ok(bytes.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_units_and_refuse_the_rest() {
        assert_eq!(parse_size("12000"), Ok(12_000));
        assert_eq!(parse_size("50MB"), Ok(50_000_000));
        assert_eq!(parse_size("64MiB"), Ok(64 * 1024 * 1024));
        for bad in ["", "KB", "12XB", "-3", "1.2.3", "1e99", "99999999TiB"] {
            assert!(parse_size(bad).is_err(), "{bad:?} accepted");
        }
    }
}
