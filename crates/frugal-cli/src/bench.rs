pub struct BenchArgs;
impl clap::Args for BenchArgs {
    fn augment_args(c: clap::Command) -> clap::Command {
        c
    }
    fn augment_args_for_update(c: clap::Command) -> clap::Command {
        c
    }
}
impl clap::FromArgMatches for BenchArgs {
    fn from_arg_matches(_: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(BenchArgs)
    }
    fn update_from_arg_matches(&mut self, _: &clap::ArgMatches) -> Result<(), clap::Error> {
        Ok(())
    }
}
pub fn run(_: &BenchArgs) -> anyhow::Result<()> {
    Ok(())
}
