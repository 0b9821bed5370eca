package nodeimage

import (
	"context"
	"time"
)

// The Docker engine is driven through the docker command, as kind drives
// it; DOCKER_HOST says which engine (hack/kind/lib.sh use_engine exports
// it for the project's).

// EngineAnswers says whether a Docker engine answers `docker info` within
// half a minute.
func EngineAnswers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return Command{Name: "docker", Args: []string{"info"}, Quiet: true}.Run(ctx) == nil
}

// LoadIntoEngine loads the image tarball into the engine, when one answers,
// unless the engine holds image with the build key already (LabelBuild).
func LoadIntoEngine(ctx context.Context, image, tarball, key string) error {
	if !EngineAnswers(ctx) {
		return nil
	}
	got, _ := Command{Name: "docker", Args: []string{"image", "inspect", "-f", `{{index .Config.Labels "` + LabelBuild + `"}}`, image}, Quiet: true}.Output(ctx)
	if got == key {
		Logf("%s is loaded already", image)
		return nil
	}
	Logf("docker load %s", tarball)
	start := time.Now()
	if err := (Command{Name: "docker", Args: []string{"load", "-i", tarball}, Quiet: true}).Run(ctx); err != nil {
		return err
	}
	Logf("loaded %s in %s", image, time.Since(start).Round(100*time.Millisecond))
	return nil
}
