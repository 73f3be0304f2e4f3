//! Man pages and shell completions generated from the clap definition.

use std::fs;
use std::io;
use std::path::Path;

use clap_complete::Shell;

/// Writes `ldwarc.1`, one page per subcommand (nested ones too), and completions under
/// `completions/`.
pub fn generate(out: &Path) -> io::Result<()> {
    fs::create_dir_all(out.join("completions"))?;
    let command = super::command();
    write_page(out, &command, "ldwarc")?;
    write_subcommand_pages(out, &command, "ldwarc")?;
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        let mut command = super::command();
        clap_complete::generate_to(shell, &mut command, "ldwarc", out.join("completions"))?;
    }
    Ok(())
}

/// One page per visible subcommand, recursively: `ldwarc-plan.1`, `ldwarc-plan-currency.1`.
fn write_subcommand_pages(out: &Path, command: &clap::Command, prefix: &str) -> io::Result<()> {
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("{prefix}-{}", sub.get_name());
        write_page(out, &sub.clone().name(name.clone()), &name)?;
        write_subcommand_pages(out, sub, &name)?;
    }
    Ok(())
}

fn write_page(out: &Path, command: &clap::Command, name: &str) -> io::Result<()> {
    let mut buffer = Vec::new();
    clap_mangen::Man::new(command.clone())
        .date("")
        .render(&mut buffer)?;
    fs::write(out.join(format!("{name}.1")), buffer)
}
