//! Man pages and shell completions generated from the clap definition and the help sections
//! of [`super::help`].

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use clap_complete::Shell;

use super::help;

/// Writes `ldwarc.1`, one page per subcommand (nested ones too), and completions under
/// `completions/`.
pub fn generate(out: &Path) -> io::Result<()> {
    fs::create_dir_all(out.join("completions"))?;
    let command = super::command();
    write_page(out, &command, "ldwarc", "ldwarc")?;
    write_subcommand_pages(out, &command, "ldwarc", "")?;
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        let mut command = super::command();
        clap_complete::generate_to(shell, &mut command, "ldwarc", out.join("completions"))?;
    }
    Ok(())
}

/// One page per visible subcommand, recursively: `ldwarc-plan.1`, `ldwarc-plan-currency.1`.
fn write_subcommand_pages(
    out: &Path,
    command: &clap::Command,
    prefix: &str,
    path_prefix: &str,
) -> io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("{prefix}-{}", sub.get_name());
        let path = if path_prefix.is_empty() {
            sub.get_name().to_string()
        } else {
            format!("{path_prefix} {}", sub.get_name())
        };
        write_page(out, &sub.clone().name(name.clone()), &name, &path)?;
        write_subcommand_pages(out, sub, &name, &path)?;
    }
    Ok(())
}

fn write_page(out: &Path, command: &clap::Command, name: &str, path: &str) -> io::Result<()> {
    // The sections are rendered as proper man sections below, not as clap's after-help text.
    let command = command.clone().after_long_help("").after_help("");
    let man = clap_mangen::Man::new(command.clone()).date("");
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if command.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    if let Some(sections) = help::sections(path) {
        write_sections(&mut page, &sections)?;
    }
    if command.get_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    fs::write(out.join(format!("{name}.1")), page)
}

fn write_sections(page: &mut Vec<u8>, sections: &help::Sections) -> io::Result<()> {
    writeln!(page, ".SH EXAMPLES")?;
    for (line, what) in sections.examples {
        writeln!(page, ".TP\n\\fB{}\\fR\n{}", roff(line), roff(what))?;
    }
    writeln!(page, ".SH \"EXIT STATUS\"")?;
    for (code, meaning) in help::exit_status(sections.exit_status) {
        writeln!(page, ".TP\n\\fB{code}\\fR\n{}", roff(meaning))?;
    }
    writeln!(page, ".SH ENVIRONMENT")?;
    for (name, meaning) in help::environment(sections.environment) {
        writeln!(page, ".TP\n\\fB{}\\fR\n{}", roff(name), roff(meaning))?;
    }
    if !sections.files.is_empty() {
        writeln!(page, ".SH FILES")?;
        for (path, meaning) in sections.files {
            writeln!(page, ".TP\n\\fI{}\\fR\n{}", roff(path), roff(meaning))?;
        }
    }
    Ok(())
}

/// Text safe in a roff line: backslashes and hyphens escaped, no leading control character.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
