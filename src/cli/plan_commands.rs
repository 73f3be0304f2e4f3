//! `ldwarc plan`: capacity planning from the change models (`ldwarc plan currency`).

use std::io::{self, Write};

use clap::{ArgGroup, Args, Subcommand};
use serde::Serialize;

use super::output;
use crate::dynamics::duration::{DAY, format_number};
use crate::dynamics::{
    Weibull, bandwidth, currency_probability, format_duration, parse_duration, reindexing_period,
};

/// Arguments of `ldwarc plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    command: PlanCommand,
}

#[derive(Debug, Subcommand)]
enum PlanCommand {
    /// The re-indexing period that keeps an index (α, β)-current, or α for a given period.
    #[command(
        long_about = "The re-indexing period T that keeps an index (α, β)-current: a randomly \
        chosen page is β-current (unchanged between its last visit and β before now) with \
        probability α, when every page is re-indexed every T and the pages' mean change times \
        follow a Weibull distribution (Brewington & Cybenko, \"How dynamic is the Web?\", \
        eq. 24). With --period, the α that period gives instead. With --documents and \
        --mean-size, also the documents per day and the bandwidth that re-indexing needs.\n\n\
        Durations are written like 1d, 7d, 12h, 30m, 1d12h or 2w (a bare number is days). \
        The default Weibull is the paper's lifetime-based fit: shape 1.4, scale 152.2 days. \
        See docs/dynamics.md."
    )]
    Currency(CurrencyArgs),
}

/// Arguments of `ldwarc plan currency`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("solve").required(true).args(["alpha", "period"])))]
pub struct CurrencyArgs {
    /// Wanted probability that a random page is β-current, in (0, 1]; prints the period T.
    #[arg(long, value_name = "A", value_parser = parse_probability)]
    alpha: Option<f64>,
    /// Grace period β: changes younger than this are forgiven.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg)]
    beta: f64,
    /// Weibull distribution of the pages' mean change times: SHAPE,SCALE (scale a duration).
    #[arg(
        long,
        value_name = "SHAPE,SCALE",
        default_value = "1.4,152.2d",
        value_parser = parse_weibull_arg
    )]
    weibull: Weibull,
    /// Re-indexing period T; prints the α it gives (instead of --alpha).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_arg)]
    period: Option<f64>,
    /// Number of documents in the index (for the bandwidth).
    #[arg(long, value_name = "N", requires = "mean_size")]
    documents: Option<u64>,
    /// Mean document size: bytes, or with a unit (12KB = 12,000 bytes, 12KiB = 12,288).
    #[arg(
        long,
        value_name = "BYTES",
        requires = "documents",
        value_parser = parse_size_arg
    )]
    mean_size: Option<f64>,
    /// Print one JSON object (times in days) instead of text.
    #[arg(long)]
    json: bool,
}

/// `ldwarc plan …`.
pub fn plan(args: PlanArgs) -> io::Result<i32> {
    match args.command {
        PlanCommand::Currency(args) => currency(args),
    }
}

/// The plan as printed with `--json`; times in days.
#[derive(Debug, Serialize)]
struct CurrencyReport {
    /// `period` (α was given) or `alpha` (the period was given).
    solved_for: &'static str,
    alpha: f64,
    beta_days: f64,
    period_days: f64,
    weibull: WeibullReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    bandwidth: Option<BandwidthReport>,
}

#[derive(Debug, Serialize)]
struct WeibullReport {
    shape: f64,
    scale_days: f64,
    mean_days: f64,
    median_days: f64,
}

#[derive(Debug, Serialize)]
struct BandwidthReport {
    documents: u64,
    mean_size_bytes: f64,
    documents_per_day: f64,
    bits_per_second: f64,
}

fn currency(args: CurrencyArgs) -> io::Result<i32> {
    let invalid =
        |e: crate::dynamics::DynamicsError| io::Error::new(io::ErrorKind::InvalidInput, e);
    let (solved_for, alpha, period) = match (args.alpha, args.period) {
        (_, Some(period)) => {
            if period <= 0.0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the re-indexing period must be positive",
                ));
            }
            let alpha = currency_probability(args.weibull, period, args.beta);
            ("alpha", alpha, period)
        }
        (Some(alpha), None) => {
            let period = reindexing_period(args.weibull, alpha, args.beta).map_err(invalid)?;
            ("period", alpha, period)
        }
        (None, None) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "give --alpha or --period",
            ));
        }
    };
    let load = match (args.documents, args.mean_size) {
        (Some(documents), Some(size)) => Some((
            documents,
            size,
            bandwidth(documents as f64, size, period).map_err(invalid)?,
        )),
        _ => None,
    };
    let w = args.weibull;
    let mut out = output::stdout();
    if args.json {
        let report = CurrencyReport {
            solved_for,
            alpha,
            beta_days: args.beta / DAY,
            period_days: period / DAY,
            weibull: WeibullReport {
                shape: w.shape,
                scale_days: w.scale / DAY,
                mean_days: w.mean() / DAY,
                median_days: w.median() / DAY,
            },
            bandwidth: load.map(|(documents, size, b)| BandwidthReport {
                documents,
                mean_size_bytes: size,
                documents_per_day: b.documents_per_day,
                bits_per_second: b.bits_per_second,
            }),
        };
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "mean change times   Weibull shape {}, scale {} (mean {}, median {})",
            format_number(w.shape, 4),
            format_duration(w.scale),
            format_duration(w.mean()),
            format_duration(w.median())
        )?;
        writeln!(out, "grace period β      {}", format_duration(args.beta))?;
        // A given α prints as given; a computed one with six decimals.
        let alpha_text = if solved_for == "alpha" {
            format_number(alpha, 6)
        } else {
            alpha.to_string()
        };
        writeln!(out, "probability α       {alpha_text}")?;
        writeln!(out, "re-indexing period  {}", format_duration(period))?;
        if let Some((documents, size, b)) = load {
            writeln!(
                out,
                "documents           {documents} of {} bytes",
                format_number(size, 2)
            )?;
            writeln!(
                out,
                "re-indexing rate    {:.0} documents/day",
                b.documents_per_day
            )?;
            writeln!(
                out,
                "bandwidth           {}",
                format_bit_rate(b.bits_per_second)
            )?;
        }
    }
    out.flush()?;
    Ok(0)
}

/// Bits per second with an SI prefix and one decimal: `104.6 Mbit/s`.
fn format_bit_rate(bits_per_second: f64) -> String {
    let (value, unit) = if bits_per_second >= 1e9 {
        (bits_per_second / 1e9, "Gbit/s")
    } else if bits_per_second >= 1e6 {
        (bits_per_second / 1e6, "Mbit/s")
    } else if bits_per_second >= 1e3 {
        (bits_per_second / 1e3, "kbit/s")
    } else {
        (bits_per_second, "bit/s")
    };
    format!("{value:.1} {unit}")
}

fn parse_probability(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(format!("α must be in (0, 1], got {text}"))
    }
}

fn parse_duration_arg(text: &str) -> Result<f64, String> {
    parse_duration(text, Some(DAY)).map_err(|e| e.to_string())
}

fn parse_weibull_arg(text: &str) -> Result<Weibull, String> {
    let (shape, scale) = text
        .split_once(',')
        .ok_or_else(|| format!("'{text}' is not SHAPE,SCALE (like 1.4,152.2d)"))?;
    let shape: f64 = shape
        .trim()
        .parse()
        .map_err(|_| format!("Weibull shape '{shape}' is not a number"))?;
    let scale = parse_duration(scale, Some(DAY)).map_err(|e| e.to_string())?;
    Weibull::new(shape, scale).map_err(|e| e.to_string())
}

/// Bytes, optionally with a unit: B, KB/kB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of
/// 1024).
fn parse_size_arg(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size like 12000, 12KB or 12KiB"))?;
    let multiplier = match unit.trim() {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown size unit '{other}' (use B, KB, MB, GB, KiB, MiB or GiB)"
            ));
        }
    };
    Ok(value * multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_size_arg("12000"), Ok(12_000.0));
        assert_eq!(parse_size_arg("12KB"), Ok(12_000.0));
        assert_eq!(parse_size_arg("12kB"), Ok(12_000.0));
        assert_eq!(parse_size_arg("12KiB"), Ok(12_288.0));
        assert_eq!(parse_size_arg("1.5MB"), Ok(1_500_000.0));
        assert_eq!(parse_size_arg("2 GiB"), Ok(2_147_483_648.0));
        for bad in ["", "KB", "12XB", "-3", "1.2.3"] {
            assert!(parse_size_arg(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn parses_weibull_and_probabilities() {
        let w = parse_weibull_arg("1.4,152.2d").expect("valid");
        assert_eq!(w.shape, 1.4);
        assert!((w.scale - 152.2 * DAY).abs() < 1e-6);
        let bare = parse_weibull_arg("2, 30").expect("valid");
        assert_eq!(bare.scale, 30.0 * DAY);
        for bad in ["1.4", "x,1d", "1.4,1q", "0,1d", "1,0d"] {
            assert!(parse_weibull_arg(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_probability("0.95"), Ok(0.95));
        assert_eq!(parse_probability("1"), Ok(1.0));
        for bad in ["0", "1.01", "-0.5", "nan", "x"] {
            assert!(parse_probability(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn formats_bit_rates() {
        assert_eq!(format_bit_rate(104.575e6), "104.6 Mbit/s");
        assert_eq!(format_bit_rate(9.26e6), "9.3 Mbit/s");
        assert_eq!(format_bit_rate(1.5e9), "1.5 Gbit/s");
        assert_eq!(format_bit_rate(12.0), "12.0 bit/s");
    }
}
